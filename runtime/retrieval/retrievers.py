"""The two retrieval entry points; the structural boundary between static and state-aware retrieval.

Both rank through a registered strategy (``strategy.py``); a bare ``RetrievalIndex`` means
``text_concat``, 0.14's retriever. ``StaticRetriever.rank`` takes a query string and a depth, nothing
else, and calls only the strategy's ``rank_query``: static conditions have no parameter or attribute
through which state could pass. ``StateAwareRetriever.rank`` takes an ``ObservableState`` and hands
the strategy only the original query and ``state.canonical_json()``, the text the contract allows;
its audit record's text is ``query + "\\n" + state JSON`` whatever the strategy makes of it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from runtime.retrieval.call import QueryKind, RetrievalCall
from runtime.retrieval.index import Ranking, RetrievalIndex
from runtime.retrieval.strategies.text_concat import STATE_JOINER, TextConcat
from runtime.retrieval.strategy import NoParams, RetrievalStrategy, StrategyContext
from runtime.state.drift import contract_drift
from runtime.state.errors import ContractViolation
from runtime.state.model import ObservableState

__all__ = ["STATE_JOINER", "StateAwareRetriever", "StaticRetriever", "as_strategy"]


def as_strategy(source: RetrievalIndex | RetrievalStrategy) -> RetrievalStrategy:
    """A strategy as given, or ``text_concat`` over a bare index."""
    if isinstance(source, RetrievalIndex):
        return TextConcat(StrategyContext(index=source, endpoints=(), params=NoParams()))
    return source


def _check_depth(depth: int) -> None:
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"retrieval depth must be a non-negative int, got {depth!r}")


def _call(
    strategy: RetrievalStrategy, kind: QueryKind, text: str, depth: int, ranking: Ranking, started_ns: int
) -> RetrievalCall:
    # Every value is built here with its declared type, so the record skips re-validation.
    return RetrievalCall.model_construct(
        query_kind=kind,
        text=text,
        depth=depth,
        route_ids=ranking.route_ids,
        scores=ranking.scores,
        catalog_size=strategy.size,
        latency_us=(time.perf_counter_ns() - started_ns) // 1000,
    )


class StaticRetriever:
    """Ranks the original query alone (SR-5-STATIC, SR-PROGRESSIVE-STATIC, and every initial top 5)."""

    __slots__ = ("_strategy",)

    def __init__(self, strategy: RetrievalIndex | RetrievalStrategy) -> None:
        self._strategy = as_strategy(strategy)

    @property
    def code(self) -> str:
        return self._strategy.code

    def rank(self, query: str, depth: int) -> RetrievalCall:
        """The top ``depth`` routes for the user's original query."""
        started = time.perf_counter_ns()
        _check_depth(depth)
        ranking = self._strategy.rank_query(query, depth)
        return _call(self._strategy, "original", query, depth, ranking, started)


class StateAwareRetriever:
    """Ranks the original query with the canonical state JSON (the refreshes of SR-5-STATE-AWARE)."""

    __slots__ = ("_strategy",)

    def __init__(
        self,
        strategy: RetrievalIndex | RetrievalStrategy,
        contract: BaseModel | Mapping[str, Any] | None = None,
    ) -> None:
        """``contract``: the compiled (or parsed) state contract; if given, it must equal the pinned one."""
        if contract is not None:
            raw = contract.model_dump(mode="python") if isinstance(contract, BaseModel) else contract
            drift = contract_drift(raw)
            if drift:
                raise ContractViolation(
                    "the state contract differs from the one the runtime enforces: " + "; ".join(drift)
                )
        self._strategy = as_strategy(strategy)

    @property
    def code(self) -> str:
        return self._strategy.code

    def rank(self, query: str, state: ObservableState, k: int) -> RetrievalCall:
        """The top ``k`` routes for the query and ``state.canonical_json()``, as the strategy reads them."""
        started = time.perf_counter_ns()
        if not isinstance(state, ObservableState):
            raise ContractViolation(
                f"state-aware retrieval takes an ObservableState, not {type(state).__name__}"
            )
        _check_depth(k)
        state_text = state.canonical_json()
        ranking = self._strategy.rank_with_state(query, state_text, k)
        return _call(
            self._strategy, "original_plus_state", query + STATE_JOINER + state_text, k, ranking, started
        )
