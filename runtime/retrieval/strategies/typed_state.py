"""``typed_state``: reads the canonical state JSON as typed values, never as words.

The state text is parsed as JSON (the canonical text the contract defines, and nothing else); each
typed value goes to the index field that means the same thing, with the spec's field boost times the
route's weight:

| state value | index field (default) | why |
| --- | --- | --- |
| ``observed_semantic_ids`` | ``input_semantic_ids`` | what a next step consumes |
| ``stable_identifiers[].semantic_id`` | ``input_semantic_ids`` | carried into the call needing it |
| ``observed_units[]`` (unit, dimension, qualifier) | ``input_units`` | what converts or consumes it |
| ``observed_field_names`` | ``input_names`` | outputs often named as inputs |
| ``last_error_class`` (after an error) | ``error_classes`` | routes that document it |

JSON key names never become query terms, and neither do identifier values or route IDs (an order
number matches nothing). The original query is analysed exactly as ``text_concat`` analyses it. The
candidates are then reordered by the typed reading of ``_reading.py`` (completed routes demoted,
failed ones kept retryable, error handlers promoted, deprecated and beta versions demoted, the
blocked page skipped).
"""

from __future__ import annotations

from collections.abc import Iterable

import tantivy
from pydantic import Field

from runtime.core.errors import SchemaRouterError
from runtime.core.frozen_model import FrozenModel
from runtime.retrieval.index import Ranking, RetrievalIndex
from runtime.retrieval.strategies._reading import (
    NO_STATE,
    ReadingParams,
    TypedReading,
    TypedState,
)
from runtime.retrieval.strategy import StrategyContext, register_strategy

Clause = tuple[tantivy.Occur, tantivy.Query]
_QUERY_MEMO = 65536


class Route(FrozenModel):
    """Where one kind of typed value goes: an index field, and a weight on that field's boost."""

    field: str = Field(description="Index field id (spec/retriever.yaml fields[].id).")
    weight: float = Field(ge=0, description="Multiplier on the field's boost; 0 turns the route off.")


class TypedRoutes(FrozenModel):
    """Where each kind of typed state value is looked up."""

    semantic_ids: Route = Route(field="input_semantic_ids", weight=1.0)
    identifiers: Route = Route(field="input_semantic_ids", weight=1.0)
    units: Route = Route(field="input_units", weight=1.0)
    field_names: Route = Route(field="input_names", weight=0.5)
    error_class: Route = Route(field="error_classes", weight=1.0)


class TypedStateParams(ReadingParams):
    """The parameters of ``typed_state`` (defaults: the values chosen on the development surface)."""

    routes: TypedRoutes = TypedRoutes()


class TypedLexical:
    """The lexical half: BM25 over the query plus the typed values, each in its own field."""

    def __init__(self, index: RetrievalIndex, routes: TypedRoutes) -> None:
        for name in TypedRoutes.model_fields:
            route: Route = getattr(routes, name)
            if not index.has_field(route.field):
                raise SchemaRouterError(
                    f"strategy.params.routes.{name}.field: {route.field!r} is not a field of the "
                    "retriever spec"
                )
        self.index = index
        self.routes = routes
        self._query_clauses: dict[str, list[Clause]] = {}

    def query_clauses(self, query: str) -> list[Clause]:
        hit = self._query_clauses.get(query)
        if hit is None:
            hit = self.index.text_clauses(query)
            if len(self._query_clauses) < _QUERY_MEMO:
                self._query_clauses[query] = hit
        return hit

    def rank(self, query: str, state: TypedState, limit: int) -> Ranking:
        clauses = list(self.query_clauses(query))
        clauses.extend(self._typed_clauses(state))
        return self.index.search_clauses(clauses, limit)

    def _typed_clauses(self, state: TypedState) -> Iterable[Clause]:
        r = self.routes
        parts: list[tuple[Route, Iterable[str]]] = [
            (r.semantic_ids, state.semantic_ids),
            (r.identifiers, state.identifier_ids),
            (r.units, state.units),
            (r.field_names, state.field_names),
        ]
        if state.status == "error" and state.error_class is not None:
            parts.append((r.error_class, (state.error_class,)))
        weights: dict[tuple[str, str], float] = {}
        for route, values in parts:
            if route.weight == 0:
                continue
            for value in values:
                for term in dict.fromkeys(self.index.field_terms(route.field, value)):
                    key = (route.field, term)
                    weights[key] = weights.get(key, 0.0) + route.weight
        for (field_id, term), weight in sorted(weights.items()):
            yield self.index.field_clause(field_id, term, weight)


@register_strategy("typed_state", params=TypedStateParams)
class TypedStateStrategy:
    """BM25 over the query plus typed state values routed to the index fields that mean the same."""

    code = "typed_state"

    def __init__(self, context: StrategyContext) -> None:
        params = context.params
        assert isinstance(params, TypedStateParams)
        self._lexical = TypedLexical(context.index, params.routes)
        self._reading = TypedReading(context.endpoints, params)

    @property
    def size(self) -> int:
        return self._lexical.index.size

    def rank_query(self, query: str, depth: int) -> Ranking:
        """The query alone; the public deprecated flag and beta versions demoted as the params say."""
        if not self._reading.reorders_query:
            return self._lexical.index.search(query, depth)
        ranking = self._lexical.rank(query, NO_STATE, self._reading.limit(NO_STATE, depth))
        return self._reading.apply(ranking, NO_STATE, depth)

    def rank_with_state(self, query: str, state_text: str, depth: int) -> Ranking:
        state = TypedState.parse(state_text)
        if state is None:
            return self.rank_query(query, depth)
        ranking = self._lexical.rank(query, state, self._reading.limit(state, depth))
        return self._reading.apply(ranking, state, depth)
