"""The strategy registry: stable codes, lookup, parameters, and the boundary the entry points keep."""

from __future__ import annotations

import pytest
from retrieval_support import frozen_spec, geocoded, toy_index
from retrieval_toy_catalog import TOY_CATALOG

from runtime.core.errors import SchemaRouterError
from runtime.retrieval import (
    DEFAULT_STRATEGY,
    StateAwareRetriever,
    StaticRetriever,
    build_from_spec,
    build_strategy,
    get_strategy,
    parse_retriever_spec,
    register_strategy,
    strategy_codes,
)
from runtime.retrieval.index import Ranking
from runtime.retrieval.strategy import StrategyContext, strategy_of
from runtime.state import ObservableState

QUERIES = ("weather tomorrow in Paris", "refund an order", "天気", "", "a:b AND {x}")


def _state() -> ObservableState:
    return geocoded(1.5, message="free text never reaches retrieval")


def test_text_concat_is_registered_and_the_default() -> None:
    assert "text_concat" in strategy_codes()
    assert DEFAULT_STRATEGY == "text_concat"
    assert strategy_of(frozen_spec()) == ("text_concat", {})
    assert get_strategy("text_concat").summary


def test_unknown_code_is_one_clear_line() -> None:
    with pytest.raises(SchemaRouterError) as err:
        get_strategy("no_such_strategy")
    assert "\n" not in str(err.value) and "text_concat" in str(err.value)


def test_a_code_cannot_be_registered_twice() -> None:
    with pytest.raises(SchemaRouterError, match="registered twice"):

        @register_strategy("text_concat")
        class Impostor:
            pass


def test_text_concat_ranks_exactly_as_the_index() -> None:
    index = toy_index()
    strategy = build_from_spec(frozen_spec(), TOY_CATALOG, index=index)
    state_text = _state().canonical_json()
    for query in QUERIES:
        assert strategy.rank_query(query, 5) == index.search(query, 5)
        assert strategy.rank_with_state(query, state_text, 5) == index.search(query + "\n" + state_text, 5)
        assert (
            StaticRetriever(strategy).rank(query, 5).route_ids
            == StaticRetriever(index).rank(query, 5).route_ids
        )
        a = StateAwareRetriever(strategy).rank(query, _state(), 5)
        b = StateAwareRetriever(index).rank(query, _state(), 5)
        assert (a.text, a.route_ids, a.scores) == (b.text, b.route_ids, b.scores)


def test_text_concat_takes_no_params() -> None:
    with pytest.raises(SchemaRouterError, match=r"strategy.params.alpha"):
        build_strategy("text_concat", TOY_CATALOG, index=toy_index(), params={"alpha": 1})


def test_spec_names_a_strategy_and_unknown_keys_are_refused() -> None:
    raw = frozen_spec().model_dump(mode="python")
    raw["strategy"] = {"code": "text_concat", "params": {}}
    assert strategy_of(parse_retriever_spec(raw)) == ("text_concat", {})
    raw["strategy"] = {"code": "text_concat", "colour": "red"}
    with pytest.raises(SchemaRouterError, match=r"strategy\.colour"):
        parse_retriever_spec(raw)


def test_an_index_over_another_catalog_is_refused() -> None:
    with pytest.raises(SchemaRouterError, match="another catalog"):
        build_strategy("text_concat", TOY_CATALOG.endpoints[:2], index=toy_index())


class _Spy:
    """Records what the entry points hand a strategy."""

    code = "spy"

    def __init__(self) -> None:
        self.seen: list[tuple[str, ...]] = []

    @property
    def size(self) -> int:
        return 3

    def rank_query(self, query: str, depth: int) -> Ranking:
        self.seen.append(("query", query))
        return Ranking(("a",), (1.0,))

    def rank_with_state(self, query: str, state_text: str, depth: int) -> Ranking:
        self.seen.append(("state", query, state_text))
        return Ranking(("b",), (1.0,))


def test_entry_points_hand_strategies_only_the_query_and_canonical_state() -> None:
    spy = _Spy()
    StaticRetriever(spy).rank("q", 5)
    call = StateAwareRetriever(spy).rank("q", _state(), 5)
    assert spy.seen == [("query", "q"), ("state", "q", _state().canonical_json())]
    assert "free text" not in repr(spy.seen)
    assert call.text == "q\n" + _state().canonical_json() and call.catalog_size == 3


def test_strategy_context_carries_no_task_or_state() -> None:
    assert set(StrategyContext.__dataclass_fields__) == {"index", "endpoints", "params", "cache_dir"}
