"""A state derived from a checked state re-checks only the fields its step changed (model._guarded_step).

The fast path must give exactly what the validating path (``_guarded`` over every field) gives: the
same state, or the same refusal. Random walks of typed transitions, hostile values among them, are
run both ways; a hostile value is still refused where it enters, and a state checked under another
guard takes the validating path.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from runtime.simulator.result import ObservedField, ToolResult
from runtime.state import ContractViolation, ObservableState
from runtime.state import guard as guard_module
from runtime.state import model as state_model
from runtime.state.guard import StateGuard, installed_guard
from runtime.state.layout import StateField
from runtime.state.sources import Refusal

ROUTES = ("geo.geocode.v1", "weather.forecast.daily.v2", "crm.customer.lookup.v1")
# Each hostile value names a forbidden item or a condition, in a place the state would carry it.
HOSTILE_NAMES = ("gold_next_route", "future_routes", "SR-5-STATE-AWARE", "oracle_graph")


def _field(rng: random.Random, hostile: bool) -> ObservedField:
    name = rng.choice(HOSTILE_NAMES) if hostile else rng.choice(("latitude", "place_id", "total"))
    unit = rng.choice((None, "deg", "degC"))
    return ObservedField.model_validate(
        {
            "name": name,
            "semantic_id": rng.choice(("geo.latitude", "geo.place_id", "order.total")),
            "json_type": rng.choice(("number", "string")),
            "unit": unit,
            "dimension": None if unit is None else rng.choice(("angle", "temperature")),
            "stable_identifier": rng.random() < 0.3,
            "value": rng.choice((None, "pl_7Q2", 42, "ord_9", "x y")),
        }
    )


def _result(rng: random.Random, hostile: bool) -> ToolResult:
    status = rng.choice(("ok", "ok", "error"))
    fields = tuple(_field(rng, hostile and i == 0) for i in range(rng.randint(0, 3)))
    error = rng.choice(("NOT_FOUND", "INVALID_INPUT")) if status == "error" else None
    return ToolResult(route_id=rng.choice(ROUTES), status=status, error_class=error, fields=fields)


def _validating(state: ObservableState, step: Callable[[StateField, object], object]) -> ObservableState:
    """The path every field takes without the fast path: the whole derived mapping through _guarded."""
    layout = state.layout
    data = {f.name: step(f, getattr(state, f.name)) for f in layout.fields}
    return ObservableState._build(layout, data)  # type: ignore[arg-type]


def _outcome(make: Callable[[], ObservableState]) -> ObservableState | str:
    try:
        return make()
    except ContractViolation as err:
        return f"refused: {err}"


def _transition(
    rng: random.Random, state: ObservableState, hostile: bool
) -> tuple[Callable[[], ObservableState], Callable[[], ObservableState]]:
    """One random transition as (fast, validating)."""
    pick = rng.random()
    if pick < 0.5:
        result = _result(rng, hostile)
        return (
            lambda: state.after_result(result),
            lambda: _validating(state, lambda f, v: f.source.on_result(v, result)),
        )
    if pick < 0.85:
        error = rng.choice(("UNEXPOSED", "MISSING_INPUT", "UNAUTHORIZED_DESTRUCTIVE"))
        missing = tuple(rng.sample(("geo.latitude", "order.id", "plan"), rng.randint(0, 2)))
        route = rng.choice((*ROUTES, None))
        refusal = Refusal(route, error, missing)
        return (
            lambda: state.after_blocked(route, error, missing),
            lambda: _validating(state, lambda f, v: f.source.on_refusal(v, refusal)),
        )
    flag = rng.random() < 0.5
    return (
        lambda: state.with_task_incomplete(flag),
        lambda: _validating(state, lambda f, v: flag if f.source.code == "engine.task_incomplete" else v),
    )


@pytest.mark.parametrize("seed", range(40))
def test_fast_path_agrees_with_the_validating_path(seed: int) -> None:
    rng = random.Random(seed)
    state = ObservableState.initial()
    refused = 0
    for _ in range(60):
        fast, slow = _transition(rng, state, hostile=rng.random() < 0.15)
        got, want = _outcome(fast), _outcome(slow)
        assert got == want
        if isinstance(got, str):
            refused += 1
            continue
        assert isinstance(want, ObservableState)
        assert got.model_dump(mode="json") == want.model_dump(mode="json")
        assert got.canonical_json() == want.canonical_json()
        state = got
    assert refused < 60


def test_a_hostile_field_is_refused_where_it_enters() -> None:
    state = ObservableState.initial().after_result(
        ToolResult(route_id=ROUTES[0], status="ok", fields=(_field(random.Random(0), hostile=False),))
    )
    hostile = ObservedField.model_validate(
        {"name": "gold_next_route", "semantic_id": "geo.latitude", "json_type": "number", "value": 1}
    )
    result = ToolResult(route_id=ROUTES[1], status="ok", fields=(hostile,))
    # Named at its index in the whole set, after the field name the state already holds.
    with pytest.raises(ContractViolation, match=r"observed_field_names\[1\].*gold_next_route_id"):
        state.after_result(result)
    with pytest.raises(ContractViolation, match=r"observed_field_names\[1\].*gold_next_route_id"):
        _validating(state, lambda f, v: f.source.on_result(v, result))
    with pytest.raises(ContractViolation):
        state.after_blocked("SR-5-STATE-AWARE", "UNEXPOSED")


def test_unchanged_fields_skip_the_checks_only_under_the_guard_that_checked_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = ObservableState.initial().after_result(
        ToolResult(route_id=ROUTES[0], status="ok", fields=(_field(random.Random(1), hostile=False),))
    )
    calls: list[int] = []
    real = state_model._guarded

    def counting(data: object, layout: object) -> object:
        calls.append(1)
        return real(data, layout)  # type: ignore[arg-type]

    monkeypatch.setattr(state_model, "_guarded", counting)
    state.after_blocked(ROUTES[1], "UNEXPOSED")
    assert calls == []  # the fast path: only the changed fields were checked
    guard = installed_guard()
    assert guard is not None
    monkeypatch.setattr(guard_module, "_active", StateGuard(guard.vocabulary))  # another guard object
    state.after_blocked(ROUTES[1], "UNEXPOSED")
    assert calls == [1]  # a state checked under another guard: every field through _guarded


def test_unchanged_means_the_same_objects() -> None:
    item = "geo.geocode.v1"
    assert state_model._unchanged((item,), (item,))
    assert state_model._unchanged(None, None)
    assert not state_model._unchanged(True, 1)
    assert not state_model._unchanged((item,), [item])
    assert not state_model._unchanged((item,), (item, item))
    assert not state_model._unchanged(((1, 2),), ([1, 2],))
