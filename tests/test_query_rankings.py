"""A run ranks each task's original query once per catalog and strategy (runtime/engine/query_rankings.py):
the memo gives exactly what the strategy gives, for every (query, depth), never memoizes a state-aware
ranking, and stays bounded."""

from __future__ import annotations

import random

from retrieval_support import toy_index

from runtime.engine import query_rankings
from runtime.engine.query_rankings import MemoizedQueryRankings
from runtime.retrieval import StaticRetriever
from runtime.retrieval.index import Ranking
from runtime.retrieval.retrievers import as_strategy

WORDS = ("send", "message", "channel", "weather", "forecast", "geocode", "city", "order", "refund", "the")


def test_remembered_rankings_equal_the_strategy_s_for_random_queries_and_depths() -> None:
    strategy = as_strategy(toy_index())
    memo = MemoizedQueryRankings(strategy)
    retriever = StaticRetriever(memo)
    assert (memo.code, memo.size) == (strategy.code, strategy.size)
    rng = random.Random(7)
    for _ in range(300):
        query = " ".join(rng.choices(WORDS, k=rng.randint(0, 4)))
        depth = rng.randint(0, 15)
        call = retriever.rank(query, depth)
        want = strategy.rank_query(query, depth)
        assert (call.route_ids, call.scores) == (want.route_ids, want.scores)
        assert (call.depth, call.text, call.catalog_size) == (depth, query, strategy.size)
        state_text = '{"attempt_count":' + str(depth) + "}"
        assert memo.rank_with_state(query, state_text, depth) == strategy.rank_with_state(
            query, state_text, depth
        )


class _Counting:
    """A strategy that counts its rankings (its ranking: the query's words, in order)."""

    code = "counting"
    size = 3

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def rank_query(self, query: str, depth: int) -> Ranking:
        self.calls.append((query, str(depth)))
        words = tuple(query.split())[:depth]
        return Ranking(words, tuple(1.0 for _ in words))

    def rank_with_state(self, query: str, state_text: str, depth: int) -> Ranking:
        self.calls.append((query, state_text, str(depth)))
        return self.rank_query(query, depth)


def test_one_ranking_per_query_and_depth_and_state_is_never_remembered() -> None:
    strategy = _Counting()
    memo = MemoizedQueryRankings(strategy)
    assert memo.rank_query("a b c", 2).route_ids == ("a", "b")
    assert memo.rank_query("a b c", 2).route_ids == ("a", "b")
    assert memo.rank_query("a b c", 3).route_ids == ("a", "b", "c")  # another depth: ranked again
    assert memo.rank_query("a b", 2).route_ids == ("a", "b")  # another query: ranked again
    assert strategy.calls == [("a b c", "2"), ("a b c", "3"), ("a b", "2")]
    strategy.calls.clear()
    memo.rank_with_state("a b c", "{}", 2)
    memo.rank_with_state("a b c", "{}", 2)
    assert strategy.calls == [("a b c", "{}", "2"), ("a b c", "2")] * 2  # passed through each time


def test_the_memo_is_bounded() -> None:
    memo = MemoizedQueryRankings(_Counting())
    for i in range(query_rankings.MEMO_RANKINGS + 5):
        memo.rank_query(f"q{i}", 1)
    assert len(memo._rankings) <= query_rankings.MEMO_RANKINGS
