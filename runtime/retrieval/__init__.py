"""Retrieval over a catalog: one Tantivy index per catalog, registered strategies, two entry points.

``StaticRetriever.rank(query, depth)`` cannot reach state; ``StateAwareRetriever.rank(query, state, k)``
hands its strategy only the query and ``state.canonical_json()``. Every call returns a
``RetrievalCall``. Strategies are registered by code (``strategy.py``); ``text_concat`` is 0.14's.
"""

from runtime.retrieval.call import QueryKind, RetrievalCall
from runtime.retrieval.index import Ranking, RetrievalIndex
from runtime.retrieval.retrievers import STATE_JOINER, StateAwareRetriever, StaticRetriever
from runtime.retrieval.strategy import (
    DEFAULT_STRATEGY,
    RetrievalStrategy,
    StrategyContext,
    build_from_spec,
    build_strategy,
    get_strategy,
    register_strategy,
    strategy_codes,
)
from runtime.spec_model.retriever import RetrieverSpec, StrategyChoice, parse_retriever_spec

__all__ = [
    "DEFAULT_STRATEGY",
    "STATE_JOINER",
    "QueryKind",
    "Ranking",
    "RetrievalCall",
    "RetrievalIndex",
    "RetrievalStrategy",
    "RetrieverSpec",
    "StateAwareRetriever",
    "StaticRetriever",
    "StrategyChoice",
    "StrategyContext",
    "build_from_spec",
    "build_strategy",
    "get_strategy",
    "parse_retriever_spec",
    "register_strategy",
    "strategy_codes",
]
