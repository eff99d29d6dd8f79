"""``text_concat``: 0.14's research retriever, unchanged.

The original query alone for static calls; ``query + "\\n" + canonical state JSON`` analysed as words
for state-aware ones, over the lexical index of the retriever spec. 0.14's run of record depends on
every byte of this: it is pinned by ``golden/0.14``.
"""

from __future__ import annotations

from runtime.retrieval.index import Ranking
from runtime.retrieval.strategy import StrategyContext, register_strategy

STATE_JOINER = "\n"


@register_strategy("text_concat")
class TextConcat:
    """BM25 over the query, and over the query with the canonical state JSON appended as text."""

    code = "text_concat"
    __slots__ = ("_index",)

    def __init__(self, context: StrategyContext) -> None:
        self._index = context.index

    @property
    def size(self) -> int:
        return self._index.size

    def rank_query(self, query: str, depth: int) -> Ranking:
        return self._index.search(query, depth)

    def rank_with_state(self, query: str, state_text: str, depth: int) -> Ranking:
        return self._index.search(query + STATE_JOINER + state_text, depth)
