"""The two retrieval entry points; the structural boundary between static and state-aware retrieval.

``StaticRetriever.rank`` takes a query string and a depth, nothing else, and the object holds only
the shared index: static conditions have no parameter or attribute through which state could pass.
``StateAwareRetriever.rank`` takes an ``ObservableState`` and retrieves with
``query + "\\n" + state.canonical_json()``, the only composition the contract allows.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from schemarouter.runtime.retrieval.call import QueryKind, RetrievalCall
from schemarouter.runtime.retrieval.index import RetrievalIndex
from schemarouter.runtime.state.contract import contract_drift
from schemarouter.runtime.state.errors import ContractViolation
from schemarouter.runtime.state.model import ObservableState

STATE_JOINER = "\n"


def _call(index: RetrievalIndex, kind: QueryKind, text: str, depth: int, started_ns: int) -> RetrievalCall:
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(f"retrieval depth must be a non-negative int, got {depth!r}")
    ranking = index.search(text, depth)
    # Every value is built here with its declared type, so the record skips re-validation.
    return RetrievalCall.model_construct(
        query_kind=kind,
        text=text,
        depth=depth,
        route_ids=ranking.route_ids,
        scores=ranking.scores,
        catalog_size=index.size,
        latency_us=(time.perf_counter_ns() - started_ns) // 1000,
    )


class StaticRetriever:
    """Ranks the original query alone (SR-5-STATIC, SR-PROGRESSIVE-STATIC, and every initial top 5)."""

    __slots__ = ("_index",)

    def __init__(self, index: RetrievalIndex) -> None:
        self._index = index

    def rank(self, query: str, depth: int) -> RetrievalCall:
        """The top ``depth`` routes for the user's original query."""
        started = time.perf_counter_ns()
        return _call(self._index, "original", query, depth, started)


class StateAwareRetriever:
    """Ranks the original query plus canonical state JSON (the refreshes of SR-5-STATE-AWARE)."""

    __slots__ = ("_index",)

    def __init__(self, index: RetrievalIndex, contract: BaseModel | Mapping[str, Any] | None = None) -> None:
        """``contract``: the compiled (or parsed) state contract; if given, it must equal the pinned one."""
        if contract is not None:
            raw = contract.model_dump(mode="python") if isinstance(contract, BaseModel) else contract
            drift = contract_drift(raw)
            if drift:
                raise ContractViolation(
                    "the state contract differs from the one the runtime enforces: " + "; ".join(drift)
                )
        self._index = index

    def rank(self, query: str, state: ObservableState, k: int) -> RetrievalCall:
        """The top ``k`` routes for ``query + "\\n" + state.canonical_json()``."""
        started = time.perf_counter_ns()
        if not isinstance(state, ObservableState):
            raise ContractViolation(
                f"state-aware retrieval takes an ObservableState, not {type(state).__name__}"
            )
        text = query + STATE_JOINER + state.canonical_json()
        return _call(self._index, "original_plus_state", text, k, started)
