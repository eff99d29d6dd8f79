"""``hybrid``: the typed lexical ranking and the dense ranking, fused by reciprocal rank fusion.

Each list is read to ``depth`` routes (``typed_state``'s lexical half over the query and the typed
values, ``dense``'s similarity over the query and the typed values as words); a route scores
``sum(weight / (k + rank))`` over the lists it appears in (rank from 1), ties by route ID. Then the
typed reading of ``_reading.py`` reorders the fused candidates. Every parameter is in the spec.
"""

from __future__ import annotations

from pydantic import Field

from runtime.retrieval.index import Ranking
from runtime.retrieval.strategies._reading import (
    NO_STATE,
    ReadingParams,
    TypedReading,
    TypedState,
)
from runtime.retrieval.strategies.dense import DenseScorer, state_words
from runtime.retrieval.strategies.typed_state import TypedLexical, TypedRoutes
from runtime.retrieval.strategy import StrategyContext, register_strategy
from runtime.spec_model.retriever import Source


class HybridParams(ReadingParams):
    """The parameters of ``hybrid`` (defaults: the values chosen on the development surface)."""

    rrf_k: float = Field(default=60.0, gt=0, description="The RRF constant k (Cormack et al. use 60).")
    lexical_weight: float = Field(default=1.0, ge=0, description="Weight of the lexical list.")
    dense_weight: float = Field(default=1.0, ge=0, description="Weight of the dense list.")
    depth: int = Field(default=50, ge=1, description="How many routes of each list are fused.")
    routes: TypedRoutes = TypedRoutes()
    document: tuple[Source, ...] = Field(default=("route_id", "summary"), min_length=1)
    state_weight: float = Field(default=0.0, ge=0, description="Weight of the state reading (dense list).")


def fuse(lists: list[tuple[Ranking, float]], k: float, limit: int) -> Ranking:
    """Reciprocal rank fusion; equal fused scores are ordered by route ID."""
    fused: dict[str, float] = {}
    for ranking, weight in lists:
        if weight == 0:
            continue
        for rank, route_id in enumerate(ranking.route_ids, start=1):
            fused[route_id] = fused.get(route_id, 0.0) + weight / (k + rank)
    ordered = sorted(fused.items(), key=lambda item: (-round(item[1], 12), item[0]))[:limit]
    return Ranking(tuple(r for r, _ in ordered), tuple(s for _, s in ordered))


@register_strategy("hybrid", params=HybridParams)
class HybridStrategy:
    """Typed lexical BM25 and multilingual dense similarity, fused by reciprocal rank."""

    code = "hybrid"

    def __init__(self, context: StrategyContext) -> None:
        params = context.params
        assert isinstance(params, HybridParams)
        self._p = params
        self._lexical = TypedLexical(context.index, params.routes)
        self._dense = DenseScorer(context, params.document)
        self._reading = TypedReading(context.endpoints, params)

    @property
    def size(self) -> int:
        return self._lexical.index.size

    def _fused(self, query: str, state: TypedState, depth: int) -> Ranking:
        p = self._p
        n = max(p.depth, self._reading.limit(state, depth))
        lexical = self._lexical.rank(query, state, n)
        dense = self._dense.rank(query, n, state_words(state), p.state_weight)
        fused = fuse([(lexical, p.lexical_weight), (dense, p.dense_weight)], p.rrf_k, n)
        return self._reading.apply(fused, state, depth)

    def rank_query(self, query: str, depth: int) -> Ranking:
        return self._fused(query, NO_STATE, depth)

    def rank_with_state(self, query: str, state_text: str, depth: int) -> Ranking:
        state = TypedState.parse(state_text)
        return self._fused(query, NO_STATE if state is None else state, depth)
