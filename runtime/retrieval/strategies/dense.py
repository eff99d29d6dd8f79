"""``dense``: cosine similarity under a multilingual sentence encoder (USE multilingual v3).

A route's document is the text of its spec'd ``document`` sources, identifiers written as words
(``geo.latitude`` -> ``geo latitude``; a route ID without its version). Queries in any of the six
languages meet English documents in one vector space. Document vectors are computed once per catalog
and cached on disk by content hash; query vectors are memoized (``_encoder.py``).

With state, the typed values (never key names) are written as words, e.g. ``geo latitude geo
longitude degC temperature``, encoded (memoized: the same reading recurs across episodes), and added
to the query's similarity with weight ``state_weight`` (0 by default: on the development surface
it did not raise Recall@5, and every distinct reading costs an encoding); then the typed reading
of ``_reading.py`` reorders the candidates, as for ``typed_state``.
"""

from __future__ import annotations

import re

import numpy as np
from pydantic import Field

from runtime.catalog.model import Endpoint
from runtime.retrieval.document import source_text
from runtime.retrieval.index import Ranking
from runtime.retrieval.strategies import _encoder
from runtime.retrieval.strategies._reading import (
    NO_STATE,
    ReadingParams,
    TypedReading,
    TypedState,
)
from runtime.retrieval.strategy import StrategyContext, register_strategy
from runtime.spec_model.retriever import Source

_VERSION = re.compile(r"\.v\d+(?:beta\d*)?$")
_SEPARATORS = re.compile(r"[._:\-]+")
_IDENTIFIER_SOURCES = {
    "route_id",
    "name",
    "inputs.name",
    "outputs.name",
    "inputs.semantic_id",
    "outputs.semantic_id",
    "inputs.unit",
    "outputs.unit",
}


class DenseParams(ReadingParams):
    """The parameters of ``dense`` (defaults: the values chosen on the development surface)."""

    document: tuple[Source, ...] = Field(
        default=("route_id", "summary"), min_length=1, description="Endpoint parts a document is made of."
    )
    state_weight: float = Field(default=0.0, ge=0, description="Weight of the state reading's similarity.")


def words(identifier: str) -> str:
    """An identifier as words: ``weather.forecast.daily.v2`` -> ``weather forecast daily``."""
    return _SEPARATORS.sub(" ", _VERSION.sub("", identifier)).strip()


def document_text(endpoint: Endpoint, sources: tuple[Source, ...]) -> str:
    parts = []
    for source in sources:
        text = source_text(endpoint, (source,))
        if not text:
            continue
        parts.append(" ".join(words(v) for v in text.split("\n")) if source in _IDENTIFIER_SOURCES else text)
    return ". ".join(parts)


def state_words(state: TypedState) -> str:
    """The typed values as words, in a fixed order; empty when the state observed nothing."""
    values = [*state.semantic_ids, *state.identifier_ids, *state.units]
    return " ".join(words(v) for v in dict.fromkeys(values))


class DenseScorer:
    """Document vectors of one catalog and the similarity of a query (and a state reading) to them."""

    def __init__(self, context: StrategyContext, document: tuple[Source, ...]) -> None:
        self.route_ids = tuple(e.route_id for e in context.endpoints)
        texts = [document_text(e, document) for e in context.endpoints]
        self.cache_dir = context.cache_dir
        self.matrix = _encoder.encode_documents(texts, context.cache_dir)

    def scores(self, query: str, state_text: str = "", state_weight: float = 0.0) -> np.ndarray:
        scores: np.ndarray = self.matrix @ _encoder.encode_text(query, self.cache_dir)
        if state_text and state_weight:
            scores = scores + state_weight * (self.matrix @ _encoder.encode_text(state_text, self.cache_dir))
        return scores

    def rank(self, query: str, limit: int, state_text: str = "", state_weight: float = 0.0) -> Ranking:
        route_ids, scores = _encoder.top(self.scores(query, state_text, state_weight), self.route_ids, limit)
        return Ranking(route_ids, scores)


@register_strategy("dense", params=DenseParams)
class DenseStrategy:
    """Multilingual sentence-encoder similarity, with the state's typed values read as words."""

    code = "dense"

    def __init__(self, context: StrategyContext) -> None:
        params = context.params
        assert isinstance(params, DenseParams)
        self._p = params
        self._scorer = DenseScorer(context, params.document)
        self._reading = TypedReading(context.endpoints, params)

    @property
    def size(self) -> int:
        return len(self._scorer.route_ids)

    def rank_query(self, query: str, depth: int) -> Ranking:
        ranking = self._scorer.rank(query, self._reading.limit(NO_STATE, depth))
        return self._reading.apply(ranking, NO_STATE, depth)

    def rank_with_state(self, query: str, state_text: str, depth: int) -> Ranking:
        state = TypedState.parse(state_text)
        if state is None:
            return self.rank_query(query, depth)
        ranking = self._scorer.rank(
            query, self._reading.limit(state, depth), state_words(state), self._p.state_weight
        )
        return self._reading.apply(ranking, state, depth)
