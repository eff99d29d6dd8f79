"""The three declarable blocked-call fields: typed, observable only where a contract declares them, and
held to the guard like the nine (tests/cases/hostile/state_blocked.yaml, and every hostile value of
tests/cases/hostile/state.yaml moved into them). Without a declaration nothing changes (0.14)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hostile_support import load_cases

from runtime.catalog.io import load_catalog_with_digest
from runtime.state import ContractViolation, ObservableState
from runtime.state.declaration import FieldDeclaration, declarations
from runtime.state.guard import install_guard, installed_guard
from runtime.state.state_file import Vocabulary

REPO = Path(__file__).resolve().parents[1]
ROUTE = "calendar.events.attendees.add.v2"
BLOCKED_CASES = load_cases("state_blocked")
# The three blocked-call fields as a successor's contract declares them (scripts/variants_successor.py).
BLOCKED_FIELDS: tuple[FieldDeclaration, ...] = declarations(
    {
        "allowed": [
            {"name": "last_attempted_route_id", "type": {"kind": "optional", "items": "route_id"}},
            {"name": "missing_input_semantic_ids", "type": {"kind": "set", "items": "semantic_id"}},
            {"name": "attempt_count", "type": {"kind": "count"}},
        ]
    }
)
STATE_FIELDS = tuple(
    a["name"]
    for a in yaml.safe_load((REPO / "spec" / "0.14" / "state_contract.yaml").read_text(encoding="utf-8"))[
        "allowed"
    ]
)


def _with_fields(*fields: FieldDeclaration) -> Any:
    before = installed_guard()
    assert before is not None
    return dataclasses.replace(before.vocabulary, fields=(*before.vocabulary.fields, *fields))


@pytest.fixture
def declared() -> Iterator[None]:
    """The installed contract, plus the three blocked-call fields (as a successor's would declare them)."""
    before = installed_guard()
    assert before is not None
    install_guard(_with_fields(*BLOCKED_FIELDS))
    yield
    install_guard(before.vocabulary)


def _blocked(**fields: Any) -> dict[str, Any]:
    base = json.loads(ObservableState.initial().canonical_json())
    base.update(
        last_execution_status="blocked",
        last_error_class="MISSING_INPUT",
        last_attempted_route_id=ROUTE,
        missing_input_semantic_ids=["calendar.event_id"],
        attempt_count=1,
    )
    base.update({key: _expanded(value) for key, value in fields.items()})
    return base


def _expanded(value: Any) -> Any:
    """``{"@repeat": [item, n]}`` as a list of ``n`` copies of ``item`` (long inputs, written short)."""
    if isinstance(value, dict) and set(value) == {"@repeat"}:
        item, times = value["@repeat"]
        return [item] * times
    return value


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    catalog, _ = load_catalog_with_digest(REPO / "catalogs" / "0.14", 100)
    return Vocabulary.of(catalog)


def test_undeclared_the_state_is_0_14s() -> None:
    state = ObservableState.initial().after_blocked(ROUTE, "MISSING_INPUT", ["calendar.event_id"])
    assert tuple(json.loads(state.canonical_json())) == tuple(sorted(STATE_FIELDS))
    with pytest.raises(ContractViolation, match="unknown state keys"):
        ObservableState.model_validate({**state.model_dump(mode="json"), "attempt_count": 1})


def test_declared_a_refusal_is_observable(declared: None) -> None:
    state = ObservableState.initial()
    assert state.attempt_count == 0 and state.last_attempted_route_id is None
    state = state.after_blocked(ROUTE, "MISSING_INPUT", ["person.email", "calendar.event_id"])
    data = json.loads(state.canonical_json())
    assert data["last_attempted_route_id"] == ROUTE
    assert data["missing_input_semantic_ids"] == ["calendar.event_id", "person.email"]
    assert data["attempt_count"] == 1
    state = state.after_blocked(None, "UNEXPOSED", ["calendar.event_id"])  # a made-up name: no route
    data = json.loads(state.canonical_json())
    assert data["last_attempted_route_id"] is None and data["missing_input_semantic_ids"] == []
    assert data["attempt_count"] == 2 and data["executed_route_ids"] == []


def test_at_least_twenty_cases_aimed_at_the_new_fields() -> None:
    # 26 refused cases came with the fields (issue #25), 28 more when the fields came from the contract.
    assert len([c for c in BLOCKED_CASES if "violation" in c]) >= 26 + 20


@pytest.mark.parametrize("case", BLOCKED_CASES, ids=[c["id"] for c in BLOCKED_CASES])
def test_blocked_field_case(case: dict[str, Any], declared: None, vocabulary: Vocabulary) -> None:
    data = _blocked(**case["fields"])
    if "violation" not in case:
        ObservableState.model_validate(data)
        vocabulary.check(data)
        return
    with pytest.raises(ContractViolation) as caught:
        ObservableState.model_validate(data)
        if case.get("catalog"):
            vocabulary.check(data)
    assert case["violation"] in str(caught.value)


def _hostile_names() -> list[tuple[str, str]]:
    """Each string value of a refused state.yaml case, with the case's id."""
    found = []
    for case in load_cases("state"):
        if "line" not in case or "state" not in case or "repeat" in case:
            continue
        try:
            data = json.loads(case["state"])
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        for key in STATE_FIELDS:  # every list field of 0.14's contract a case puts a name in
            for value in data.get(key, []) if isinstance(data.get(key), list) else []:
                if isinstance(value, str):
                    found.append((case["id"], value))
    return found


HOSTILE = _hostile_names()


def test_the_state_cases_yield_hostile_names() -> None:
    assert len(HOSTILE) >= 8


@pytest.mark.parametrize(("case_id", "value"), HOSTILE, ids=[c for c, _ in HOSTILE])
def test_state_cases_against_the_new_fields(
    case_id: str, value: str, declared: None, vocabulary: Vocabulary
) -> None:
    """What state.yaml refuses in a list field is refused in each new field too (by the guard, or
    for an unregistered name by the catalog check, as for executed_route_ids)."""
    for fields in ({"last_attempted_route_id": value}, {"missing_input_semantic_ids": [value]}):
        data = _blocked(**fields)
        with pytest.raises(ContractViolation):
            ObservableState.model_validate(data)
            vocabulary.check(data)


def test_one_state_has_each_contracts_text_in_one_process() -> None:
    """An equal state under two contracts in one process (as a freeze runs the parent's canaries, then
    the successor's) gets each contract's own text: the canonical-text memo is keyed by the contract."""
    before = installed_guard()
    assert before is not None
    state = ObservableState.initial().with_task_incomplete(False)
    parent_text = state.canonical_json()
    install_guard(_with_fields(BLOCKED_FIELDS[1]))
    try:
        successor = ObservableState.initial().with_task_incomplete(False)
        assert successor.model_dump() == {**state.model_dump(), "missing_input_semantic_ids": ()}
        assert successor != state  # equal values, but each state knows its contract's fields
        assert json.loads(successor.canonical_json())["missing_input_semantic_ids"] == []
    finally:
        install_guard(before.vocabulary)
    assert state.canonical_json() == parent_text
