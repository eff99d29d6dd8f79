"""A run's memo of original-query rankings: each task's query is ranked once per catalog and strategy.

The conditions that open with the top k of a task's original query (SR-5-STATIC, SR-PROGRESSIVE-STATIC
and SR-5-STATE-AWARE all start at k = 5) would otherwise rank the same text on the same index once
each. ``MemoizedQueryRankings`` wraps the strategy a catalog's ``StaticRetriever`` ranks through (built
once per catalog and strategy choice, ``resources.py``) and keeps its ``rank_query`` answers per
(query, depth): a strategy's rankings are deterministic and the wrapped strategy (its catalog's index
and parameters) is fixed, so the key is all that varies. ``rank_with_state`` is passed through as it
is, never memoized, and the state-aware retriever does not use this wrapper. The memo is bounded
(``MEMO_RANKINGS`` entries, then cleared) and lives as long as the run's resources; the retrieval
benchmark never sees it. Only the audit record's latency changes (a remembered ranking takes no time).
"""

from __future__ import annotations

from typing import Final

from runtime.retrieval.index import Ranking
from runtime.retrieval.strategy import RetrievalStrategy

MEMO_RANKINGS: Final = 4096


class MemoizedQueryRankings:
    """``strategy`` with its original-query rankings remembered per (query, depth)."""

    __slots__ = ("_rankings", "_strategy", "code")

    def __init__(self, strategy: RetrievalStrategy) -> None:
        self._strategy = strategy
        self.code = strategy.code
        self._rankings: dict[tuple[str, int], Ranking] = {}

    @property
    def size(self) -> int:
        return self._strategy.size

    def rank_query(self, query: str, depth: int) -> Ranking:
        key = (query, depth)
        found = self._rankings.get(key)
        if found is None:
            if len(self._rankings) >= MEMO_RANKINGS:
                self._rankings.clear()
            found = self._rankings[key] = self._strategy.rank_query(query, depth)
        return found

    def rank_with_state(self, query: str, state_text: str, depth: int) -> Ranking:
        return self._strategy.rank_with_state(query, state_text, depth)
