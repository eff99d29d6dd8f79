"""typed_state: typed values reach the fields that mean the same; key names never become terms."""

from __future__ import annotations

import json

import pytest
from retrieval_support import frozen_spec, geocoded
from retrieval_toy_catalog import TOY_CATALOG

from runtime.core.errors import SchemaRouterError
from runtime.retrieval import RetrievalIndex, StateAwareRetriever, build_strategy
from runtime.retrieval.strategies._reading import TypedState
from runtime.simulator.result import ToolResult
from runtime.state import ObservableState

ENDPOINTS = tuple(
    e.model_copy(update={"description": "Use after AUTH_EXPIRED from commerce endpoints."})
    if e.route_id == "auth.token.refresh.v1"
    else e
    for e in TOY_CATALOG.endpoints
)
INDEX = RetrievalIndex.build(ENDPOINTS, frozen_spec())
KEEP_ALL = {"deprecated": "keep", "beta": "keep", "after_blocked": "same", "demote": "none"}


def _typed(**params: object):  # type: ignore[no-untyped-def]
    return build_strategy("typed_state", ENDPOINTS, index=INDEX, params=params)


def _geocoded() -> ObservableState:
    return geocoded(48.8, longitude=2.3, place_id="P-1")


def test_key_names_never_become_terms() -> None:
    strategy = _typed(**KEEP_ALL)
    initial = ObservableState.initial().canonical_json()
    # The initial state has values but no typed facts: the ranking is the query's alone.
    for query in ("weather", "refund a payment", "order"):
        assert strategy.rank_with_state(query, initial, 5) == strategy.rank_query(query, 5)
    # A text made of key names only matches nothing; text_concat would match "executed", "route", ...
    keys = json.dumps({key: [] for key in json.loads(initial)})
    assert strategy.rank_with_state("", keys, 5).route_ids == ()


def test_observed_semantic_ids_reach_their_consumers() -> None:
    strategy = _typed(**KEEP_ALL)
    ranked = strategy.rank_with_state(
        "what will it be like tomorrow", _geocoded().canonical_json(), 3
    ).route_ids
    assert set(ranked[:2]) == {"weather.forecast.daily.v1", "weather.forecast.daily.v2"}


def test_completed_routes_are_demoted_and_failed_ones_kept() -> None:
    query = "find the coordinates of a place by name"
    completed = _typed(**{**KEEP_ALL, "demote": "redundant"})
    assert completed.rank_query(query, 1).route_ids == ("geo.geocode.v1",)
    assert (
        completed.rank_with_state(query, _geocoded().canonical_json(), 12).route_ids[-1] == "geo.geocode.v1"
    )
    failed = ObservableState.initial().after_result(
        ToolResult(
            route_id="geo.geocode.v1", status="error", error_class="NOT_FOUND", fields=(), message=None
        )
    )
    assert completed.rank_with_state(query, failed.canonical_json(), 1).route_ids == ("geo.geocode.v1",)


def test_error_handlers_are_promoted_after_that_error() -> None:
    expired = ObservableState.initial().after_result(
        ToolResult(
            route_id="commerce.order.create.v1",
            status="error",
            error_class="AUTH_EXPIRED",
            fields=(),
            message=None,
        )
    )
    on = _typed(**{**KEEP_ALL, "error_handlers": "promote"})
    off = _typed(**{**KEEP_ALL, "error_handlers": "off"})
    assert (
        on.rank_with_state("place an order", expired.canonical_json(), 5).route_ids[0]
        == "auth.token.refresh.v1"
    )
    assert (
        off.rank_with_state("place an order", expired.canonical_json(), 5).route_ids[0]
        != "auth.token.refresh.v1"
    )


def test_deprecated_is_demoted_also_for_the_query_alone() -> None:
    query = "daily weather forecast for coordinates"
    assert _typed(**{**KEEP_ALL, "deprecated": "demote"}).rank_query(query, 12).route_ids.index(
        "weather.forecast.daily.v1"
    ) > _typed(**KEEP_ALL).rank_query(query, 12).route_ids.index("weather.forecast.daily.v1")


def test_after_a_blocked_attempt_the_next_page_is_shown() -> None:
    blocked = ObservableState.initial().after_blocked("geo.geocode.v1", "UNEXPOSED").canonical_json()
    paging = _typed(**{**KEEP_ALL, "after_blocked": "next_page"})
    query = "convert an order payment refund for a place event forecast"
    first = paging.rank_query(query, 10).route_ids
    assert len(first) == 10
    assert paging.rank_with_state(query, blocked, 5).route_ids == first[5:10]
    # Fewer candidates than a page: the same ones again rather than nothing.
    assert paging.rank_with_state("order", blocked, 5).route_ids == paging.rank_query("order", 5).route_ids


def test_state_text_that_is_not_a_state_falls_back_to_the_query() -> None:
    strategy = _typed()
    for text in ("not json", "[1, 2]", '"x"', "{"):
        assert TypedState.parse(text) is None or text == '"x"'
        assert strategy.rank_with_state("weather", text, 5) == strategy.rank_query("weather", 5)


def test_a_route_to_an_unknown_field_is_one_line() -> None:
    with pytest.raises(SchemaRouterError, match=r"routes\.units\.field: 'nowhere'"):
        _typed(routes={"units": {"field": "nowhere", "weight": 1}})
    with pytest.raises(SchemaRouterError, match=r"strategy\.params\.demote"):
        _typed(demote="always")


def test_free_text_of_a_result_cannot_reach_the_ranking() -> None:
    # The entry point hands the strategy the canonical JSON only; the result's message is not in it.
    a = StateAwareRetriever(_typed()).rank("weather", _geocoded(), 5)
    assert "free text" not in a.text
    assert a.route_ids == _typed().rank_with_state("weather", _geocoded().canonical_json(), 5).route_ids


def _refused(missing: list[str]) -> str:
    """A canonical-shaped state after a MISSING_INPUT refusal that a contract made observable."""
    blocked = json.loads(
        ObservableState.initial().after_blocked("weather.forecast.daily.v1", "MISSING_INPUT").canonical_json()
    )
    return json.dumps({**blocked, "missing_input_semantic_ids": missing}, sort_keys=True)


def test_producers_of_a_missing_input_are_promoted_and_the_page_kept() -> None:
    query = "daily forecast for a place"
    promoting = _typed(**{**KEEP_ALL, "after_blocked": "next_page", "missing_inputs": "promote_producers"})
    top = promoting.rank_with_state(query, _refused(["geo.place_id"]), 5).route_ids
    producers = [e.route_id for e in ENDPOINTS if any(f.semantic_id == "geo.place_id" for f in e.outputs)]
    assert producers and top[: len(producers)] == tuple(sorted(producers, key=top.index))
    # Nothing named, or the option off: exactly the 0.15 behaviour (the next page after a block).
    off = _typed(**{**KEEP_ALL, "after_blocked": "next_page"})
    assert promoting.rank_with_state(query, _refused([]), 5) == off.rank_with_state(query, _refused([]), 5)
    assert off.rank_with_state(query, _refused(["geo.place_id"]), 5) == off.rank_with_state(
        query, _refused([]), 5
    )
    # An ID that no route produces promotes nothing.
    assert promoting.rank_with_state(query, _refused(["no.such_id"]), 5) == off.rank_with_state(
        query, _refused(["no.such_id"]), 5
    )
