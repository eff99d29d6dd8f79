"""Each condition's exposure rules, against scripted retrievers (no index needed)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

from runtime.exposure import (
    FullCatalog,
    OracleRequired,
    ProgressiveWidening,
    StateRefresh,
    StaticTopK,
)
from runtime.state import ObservableState

RANKING = tuple(f"r{i:02d}" for i in range(40))


@dataclass
class FakeCall:
    text: str
    route_ids: tuple[str, ...]


@dataclass
class FakeStatic:
    calls: list[tuple[str, int]] = field(default_factory=list)

    def rank(self, query: str, depth: int) -> FakeCall:
        self.calls.append((query, depth))
        return FakeCall(query, RANKING[:depth])


@dataclass
class FakeResearch:
    calls: list[tuple[str, ObservableState, int]] = field(default_factory=list)

    def rank(self, query: str, state: ObservableState, k: int) -> FakeCall:
        self.calls.append((query, state, k))
        n = len(self.calls)
        return FakeCall(query, tuple(f"s{n}-{i}" for i in range(k + 3)))


STATE = ObservableState.initial().with_task_incomplete(True)


def test_static_top5_never_changes() -> None:
    retriever = FakeStatic()
    policy = StaticTopK(retriever, initial_k=5)  # type: ignore[arg-type]
    assert len(policy.start("q")) == 1
    assert policy.exposed == RANKING[:5]
    for _ in range(7):
        assert policy.after_tool_turn(True, STATE) == []
        assert policy.exposed == RANKING[:5]
    assert retriever.calls == [("q", 5)]


def test_progressive_widens_cumulatively_in_rank_order_at_most_five_times() -> None:
    retriever = FakeStatic()
    policy = ProgressiveWidening(retriever, initial_k=5, k_per_refresh=5, max_per_episode=5)  # type: ignore[arg-type]
    policy.start("q")
    assert retriever.calls == [("q", 30)]  # one ranking, deep enough for every widening
    widths = [len(policy.exposed)]
    for _ in range(8):
        assert policy.after_tool_turn(True, STATE) == []  # widening issues no retrieval call
        widths.append(len(policy.exposed))
        assert policy.exposed == RANKING[: len(policy.exposed)]  # a prefix of the same ranking
    assert widths == [5, 10, 15, 20, 25, 30, 30, 30, 30]
    assert policy.ranking_top5 == RANKING[:5]


def test_progressive_does_not_widen_when_task_complete() -> None:
    policy = ProgressiveWidening(FakeStatic(), initial_k=5, k_per_refresh=5, max_per_episode=5)  # type: ignore[arg-type]
    policy.start("q")
    policy.after_tool_turn(False, STATE)
    assert len(policy.exposed) == 5


def test_state_aware_refresh_replaces_exposure_with_at_most_five() -> None:
    static, research = FakeStatic(), FakeResearch()
    policy = StateRefresh(static, research, initial_k=5, k_per_refresh=5, max_per_episode=5)  # type: ignore[arg-type]
    policy.start("the query")
    assert policy.exposed == RANKING[:5] and static.calls == [("the query", 5)]
    for n in range(1, 9):
        calls = policy.after_tool_turn(True, STATE)
        assert len(calls) == (1 if n <= 5 else 0)  # one refresh per tool turn, five per episode
        assert len(policy.exposed) <= 5
    assert len(research.calls) == 5
    assert policy.exposed == tuple(f"s5-{i}" for i in range(5))  # replaced, not accumulated
    assert all(q == "the query" and s is STATE and k == 5 for q, s, k in research.calls)


def test_static_policies_have_no_way_to_reach_state() -> None:
    for cls in (StaticTopK, ProgressiveWidening):
        params = inspect.signature(cls.__init__).parameters
        assert "research" not in params and not any("state" in p for p in params)
    assert "state" not in inspect.signature(FakeStatic.rank).parameters


def test_full_is_the_whole_catalog_and_oracle_exactly_the_required_routes() -> None:
    full = FullCatalog(["b", "a", "c"])
    assert full.start("q") == [] and full.exposed == ("a", "b", "c") and full.ranking_top5 is None
    oracle = OracleRequired({"x.y", "a.b"})
    oracle.start("q")
    oracle.after_tool_turn(True, STATE)
    assert oracle.exposed == ("a.b", "x.y")
