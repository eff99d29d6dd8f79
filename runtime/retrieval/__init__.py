"""Retrieval over a catalog: one Tantivy index per catalog, injection-safe queries, and two entry points.

``StaticRetriever.rank(query, depth)`` cannot reach state; ``StateAwareRetriever.rank(query, state, k)``
retrieves with ``query + "\\n" + state.canonical_json()``. Every call returns a ``RetrievalCall``.
"""

from schemarouter.runtime.retrieval.call import QueryKind, RetrievalCall
from schemarouter.runtime.retrieval.index import Ranking, RetrievalIndex
from schemarouter.runtime.retrieval.retrievers import STATE_JOINER, StateAwareRetriever, StaticRetriever
from schemarouter.runtime.retrieval.spec import RetrieverSpec, parse_retriever_spec

__all__ = [
    "STATE_JOINER",
    "QueryKind",
    "Ranking",
    "RetrievalCall",
    "RetrievalIndex",
    "RetrieverSpec",
    "StateAwareRetriever",
    "StaticRetriever",
    "parse_retriever_spec",
]
