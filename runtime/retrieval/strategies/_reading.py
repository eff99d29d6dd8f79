"""The typed reading of a canonical state, and the reordering of candidates it implies.

Shared by ``typed_state``, ``dense`` and ``hybrid`` (a private module: discovery registers no
strategy from it). The state text is parsed as JSON; only values are read, never key names, and
only the typed values the contract defines. The catalog's public documentation (output semantic IDs,
the ``deprecated`` flag, the version, the error classes a route documents and the ones its
description names) decides how candidates are reordered:

1. after an error (``error_handlers: promote``): routes whose description names that error class
   without raising it (``Use after AUTH_EXPIRED ...``) go first;
2. ``demote``: a route whose outputs are all observed already (``redundant``; ``completed``: only
   executed ones) goes behind the rest; an executed route whose outputs were not observed (it failed)
   keeps its place, so it can be retried;
3. ``deprecated`` / ``beta``: routes so documented go behind the rest (also for the query alone);
4. after a blocked attempt (``after_blocked: next_page``): the slots the same ranking filled last
   time are skipped, since a blocked call makes nothing new observable;
5. after a ``MISSING_INPUT`` refusal that a contract's ``missing_input_semantic_ids`` makes
   observable (``missing_inputs: promote_producers``): the routes whose documented outputs include a
   missing semantic ID go first (ranked ones by rank, then the rest by route ID), and the page is not
   skipped, since the refusal did make something observable. A contract without the field never
   names a missing input, so this option then changes nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from runtime.catalog.model import Endpoint
from runtime.core.frozen_model import FrozenModel
from runtime.retrieval.index import Ranking

_BETA = re.compile(r"\.v\d+beta\d*$")
_ERROR_WORD = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


class ReadingParams(FrozenModel):
    """How the typed state and the public documentation reorder candidates (chosen on dev)."""

    demote: Literal["none", "completed", "redundant"] = Field(
        default="redundant",
        description="completed: executed routes whose outputs were observed; redundant: any route "
        "whose outputs are all observed already (a completed route's twins too).",
    )
    deprecated: Literal["keep", "demote"] = Field(default="demote", description="The public deprecated flag.")
    beta: Literal["keep", "demote"] = Field(default="demote", description="Routes whose version is a beta.")
    after_blocked: Literal["same", "next_page"] = Field(
        default="next_page", description="next_page: after a blocked attempt, skip the slots just shown."
    )
    error_handlers: Literal["off", "promote"] = Field(
        default="promote",
        description="promote: after an error, routes whose description names that error class without "
        "documenting it as their own error rank first.",
    )
    candidates: int = Field(default=40, ge=1, description="How deep a ranking is read before reordering.")
    missing_inputs: Literal["off", "promote_producers"] = Field(
        default="off",
        description="promote_producers: after a MISSING_INPUT refusal naming missing semantic IDs (a "
        "contract's missing_input_semantic_ids), routes documented as producing one rank first.",
    )


@dataclass(frozen=True)
class TypedState:
    """The typed values of a canonical state, as the strategies use them."""

    executed: frozenset[str]
    semantic_ids: tuple[str, ...]
    identifier_ids: tuple[str, ...]
    units: tuple[str, ...]
    field_names: tuple[str, ...]
    status: str
    error_class: str | None
    missing_inputs: tuple[str, ...] = ()

    @classmethod
    def parse(cls, state_text: str) -> TypedState | None:
        """None for text that is not a state object (then only the query ranks)."""
        try:
            raw = json.loads(state_text)
        except ValueError:
            return None
        if not isinstance(raw, dict):
            return None

        def strings(key: str) -> tuple[str, ...]:
            value = raw.get(key)
            return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()

        def objects(key: str) -> list[dict[str, Any]]:
            value = raw.get(key)
            return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []

        units = tuple(
            part
            for u in objects("observed_units")
            for part in (u.get("unit"), u.get("dimension"), u.get("qualifier"))
            if isinstance(part, str)
        )
        error = raw.get("last_error_class")
        status = raw.get("last_execution_status")
        return cls(
            executed=frozenset(strings("executed_route_ids")),
            semantic_ids=strings("observed_semantic_ids"),
            identifier_ids=tuple(
                s for s in (i.get("semantic_id") for i in objects("stable_identifiers")) if isinstance(s, str)
            ),
            units=units,
            field_names=strings("observed_field_names"),
            status=status if isinstance(status, str) else "none",
            error_class=error if isinstance(error, str) else None,
            missing_inputs=strings("missing_input_semantic_ids"),
        )


NO_STATE = TypedState(frozenset(), (), (), (), (), "none", None)


@dataclass(frozen=True)
class _Doc:
    outputs: frozenset[str]
    deprecated: bool
    beta: bool

    def outputs_observed(self, observed: frozenset[str]) -> bool:
        return bool(self.outputs) and self.outputs <= observed


class Docs:
    """The public documentation read per route: output semantic IDs, flags, errors it handles."""

    def __init__(self, endpoints: tuple[Endpoint, ...]) -> None:
        self._by_route = {
            e.route_id: _Doc(
                outputs=frozenset(f.semantic_id for f in e.outputs),
                deprecated=e.deprecated,
                beta=bool(_BETA.search(e.route_id)),
            )
            for e in endpoints
        }
        producing: dict[str, list[str]] = {}
        for e in endpoints:
            for semantic_id in sorted({f.semantic_id for f in e.outputs}):
                producing.setdefault(semantic_id, []).append(e.route_id)
        self._producers = {sid: tuple(sorted(routes)) for sid, routes in producing.items()}
        mentions: dict[str, list[str]] = {}
        for e in endpoints:
            for word in sorted(set(_ERROR_WORD.findall(e.description)) - set(e.errors)):
                mentions.setdefault(word, []).append(e.route_id)
        self._handlers = {word: tuple(sorted(routes)) for word, routes in mentions.items()}

    def of(self, route_id: str) -> _Doc:
        return self._by_route[route_id]

    def handlers(self, error_class: str) -> tuple[str, ...]:
        """Routes whose description names ``error_class`` though they do not raise it."""
        return self._handlers.get(error_class, ())

    def producers(self, semantic_ids: tuple[str, ...]) -> tuple[str, ...]:
        """Routes whose documented outputs include one of ``semantic_ids``, by route ID."""
        return tuple(sorted({r for sid in semantic_ids for r in self._producers.get(sid, ())}))


class TypedReading:
    """Applies ``ReadingParams`` to a ranking of candidates."""

    def __init__(self, endpoints: tuple[Endpoint, ...], params: ReadingParams) -> None:
        self.docs = Docs(endpoints)
        self.params = params

    @property
    def reorders_query(self) -> bool:
        """Whether the query alone is reordered (by the deprecated flag or the version)."""
        return self.params.deprecated == "demote" or self.params.beta == "demote"

    def producers(self, state: TypedState) -> tuple[str, ...]:
        """The routes to promote for the missing inputs the last refusal named (option 5)."""
        if self.params.missing_inputs != "promote_producers" or not state.missing_inputs:
            return ()
        return self.docs.producers(state.missing_inputs)

    def skip(self, state: TypedState, depth: int) -> int:
        if self.params.after_blocked != "next_page" or state.status != "blocked" or self.producers(state):
            return 0
        return depth

    def limit(self, state: TypedState, depth: int) -> int:
        """How many candidates to read for a final ``depth``."""
        return max(self.params.candidates, depth + self.skip(state, depth))

    def apply(self, ranking: Ranking, state: TypedState, depth: int) -> Ranking:
        """The final top ``depth``: handlers promoted, documented demotions, the blocked page skipped."""
        if self.params.error_handlers == "promote" and state.status == "error" and state.error_class:
            ranking = _promote(ranking, self.docs.handlers(state.error_class))
        producers = self.producers(state)
        if producers:
            ranking = _promote(ranking, producers)
        ordered = self._reorder(ranking, state)
        skip = self.skip(state, depth)
        if skip and len(ordered.route_ids) > skip:
            ordered = Ranking(ordered.route_ids[skip:], ordered.scores[skip:])
        return Ranking(ordered.route_ids[:depth], ordered.scores[:depth])

    def _reorder(self, ranking: Ranking, state: TypedState) -> Ranking:
        """Stable partition: kept routes first, then demoted ones; each part in its order."""
        observed = frozenset(state.semantic_ids)
        p = self.params
        kept: list[tuple[str, float]] = []
        demoted: list[tuple[str, float]] = []
        for route_id, score in zip(ranking.route_ids, ranking.scores, strict=True):
            doc = self.docs.of(route_id)
            down = False
            if p.demote == "completed":
                down = route_id in state.executed and doc.outputs_observed(observed)
            elif p.demote == "redundant":
                down = doc.outputs_observed(observed)
            down = down or (p.deprecated == "demote" and doc.deprecated) or (p.beta == "demote" and doc.beta)
            (demoted if down else kept).append((route_id, score))
        merged = kept + demoted
        return Ranking(tuple(r for r, _ in merged), tuple(s for _, s in merged))


def _promote(ranking: Ranking, handlers: tuple[str, ...]) -> Ranking:
    """``handlers`` first (ranked ones by rank, then the rest by route ID), then the ranking."""
    if not handlers:
        return ranking
    chosen = set(handlers)
    present = set(ranking.route_ids)
    pairs = list(zip(ranking.route_ids, ranking.scores, strict=True))
    merged = (
        [(r, s) for r, s in pairs if r in chosen]
        + [(r, 0.0) for r in handlers if r not in present]
        + [(r, s) for r, s in pairs if r not in chosen]
    )
    return Ranking(tuple(r for r, _ in merged), tuple(s for _, s in merged))
