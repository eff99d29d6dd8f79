"""The episode trace: one versioned JSON record per episode.

Changing any field's meaning or name means bumping ``TRACE_VERSION`` (and the engine README's
format section). Only ``wall_latency_ms`` and the retrieval calls' ``latency_us`` are not
deterministic; everything else is byte-identical for the same spec, seed and code.

Exposure is recorded by reference: the catalog's digest names the catalog, each distinct exposed
list of route IDs is stored once in ``exposures``, and turns refer to it by index (version 2). Read a
stored trace with :func:`read_trace`, which also reads version 1 (route IDs repeated in every turn).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pydantic import Field, ValidationError, model_validator

from runtime.core.errors import SchemaRouterError
from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONObject, JSONValue

TRACE_VERSION = 2
READABLE_TRACE_VERSIONS = (1, 2)
EndedBy = Literal["final_answer", "cannot_proceed", "max_turns", "no_progress"]

if TYPE_CHECKING:
    # What a reader sees: arbitrary JSON (the trace is a JSON record; these parts are recorded as
    # given: the agent's arguments and answer, the gate's audit record, the state, a model call).
    TraceJSON: TypeAlias = JSONValue
    TraceObject: TypeAlias = JSONObject
else:
    # What pydantic validates: any value / any object, walked no deeper. ``JSONValue`` is a recursive
    # alias pydantic cannot build a validator from, and walking every nested value would cost each
    # stored trace's decoding; the schema stays ``{"type": "object", "additionalProperties": true}``.
    TraceJSON = Any
    TraceObject = dict[str, Any]


class TraceDecision(FrozenModel):
    """What the agent decided in a turn."""

    kind: Literal["tool_call", "final_answer", "cannot_proceed", "bad_output"] = Field(
        description="The decision's kind."
    )
    tool_name: str | None = Field(default=None, description="Tool called (tool_call, bad_output).")
    arguments: TraceJSON = Field(default=None, description="Arguments as the agent gave them.")
    detail: str | None = Field(default=None, description="Reason or error text (cannot_proceed, bad_output).")
    answer: TraceObject | None = Field(default=None, description="Final answer values (final_answer).")


class TraceResult(FrozenModel):
    """The typed outcome of a tool turn."""

    status: Literal["ok", "error", "blocked"] = Field(description="ok, error (executed) or blocked (gate).")
    route_id: str | None = Field(description="Route the tool resolves to, null for unknown tools.")
    error_class: str | None = Field(description="Typed error class, null when ok.")
    fields: list[TraceObject] = Field(description="Typed output fields (ObservedField dumps).")
    message: str | None = Field(
        description="Free text the tool returned: shown to the model, never retrieved."
    )


class TurnRecord(FrozenModel):
    """One model turn."""

    turn: int = Field(description="1-based model turn.")
    exposure: int = Field(
        description="Index into the episode's exposures: the route IDs exposed in this turn, in the "
        "order shown."
    )
    ranking_top5: list[str] | None = Field(
        description="Top 5 of the ranking the condition used for this decision point (null: no ranking)."
    )
    retrieval_calls: list[TraceObject] = Field(
        description="Retrieval calls made since the previous turn (exact text sent, routes returned, scores)."
    )
    schema_tokens: int = Field(description="Tokens of the exposed tool schemas in this turn's prompt.")
    input_tokens: int = Field(description="Tokens of this turn's whole prompt.")
    decision: TraceDecision = Field(description="The agent's decision.")
    audit: TraceObject | None = Field(description="The policy gate's audit record (tool attempts only).")
    result: TraceResult | None = Field(description="The typed result (tool attempts only).")
    state_after: TraceObject | None = Field(
        description="ObservableState after this turn (tool attempts only)."
    )
    model_call: TraceObject | None = Field(
        default=None,
        description="Model agents only: cached, server_calls, the server's reported usage, model, "
        "system_fingerprint. Not deterministic (a replay is cached).",
    )
    after_tool_turn_recall: bool | None = Field(
        default=None, description="Whether this decision point follows a tool turn with the task incomplete."
    )


class EpisodeTrace(FrozenModel):
    """One episode: one task, one condition, one catalog size, one agent."""

    trace_version: int = Field(default=TRACE_VERSION, description="Trace format version.")
    task_id: str = Field(description="Task ID.")
    stratum: str = Field(description="Task stratum.")
    language: str = Field(description="Task language.")
    condition: str = Field(description="Condition ID.")
    catalog: int = Field(description="Catalog size.")
    agent: str = Field(description="Agent name.")
    tokenizer: str = Field(description="Tokenizer used for the counts.")
    catalog_digest: str | None = Field(
        description="Digest of the catalog file the route IDs refer to (sha256:...); null when read from a "
        "version-1 trace, which did not record it."
    )
    exposures: list[list[str]] = Field(
        description="Each distinct exposed list of route IDs once, in order of first use."
    )
    initial_exposure: int = Field(
        description="Index into exposures: the route IDs exposed in the first turn."
    )
    turns: list[TurnRecord] = Field(description="Model turns in order.")
    ended_by: EndedBy = Field(description="Why the episode stopped.")
    passed: bool = Field(description="Deterministic task pass (check_task).")
    milestones_reached: int = Field(description="Milestones observed in typed results.")
    milestones_total: int = Field(description="Milestones the task requires.")
    check_reasons: list[str] = Field(description="Why the task check failed (empty on pass).")
    epoch: int | None = Field(
        default=None,
        ge=2,
        exclude_if=lambda value: value is None,
        description="The trial's number when a run repeats episodes (sr run --epochs N), from 2 on; absent "
        "for the first (and only) trial, so a one-epoch trace is unchanged.",
    )
    metrics: dict[str, float | int | None] = Field(
        description="Per-episode metric values keyed by spec metric ID, plus ratio components."
    )
    model_calls: dict[str, int] | None = Field(
        default=None,
        description="Model agents only: calls, cache_hits, server_calls, reported prompt and completion "
        "tokens, summed over the episode. Not deterministic.",
    )
    wall_latency_ms: float = Field(description="Wall-clock time of the episode. Not deterministic.")

    @model_validator(mode="after")
    def _references_resolve(self) -> EpisodeTrace:
        n = len(self.exposures)
        if not 0 <= self.initial_exposure < n or any(not 0 <= t.exposure < n for t in self.turns):
            raise ValueError(f"an exposure index is outside the {n} recorded exposures")
        return self

    def exposed_route_ids(self, turn: TurnRecord) -> list[str]:
        """The route IDs exposed in ``turn`` (one of this trace's turns), in the order shown."""
        return self.exposures[turn.exposure]

    def initial_route_ids(self) -> list[str]:
        """The route IDs exposed in the first turn."""
        return self.exposures[self.initial_exposure] if self.exposures else []


def read_trace(data: str | bytes | Mapping[str, JSONValue]) -> EpisodeTrace:
    """A stored trace (JSON text or its parsed object) of any readable version, as the current model.

    A version-1 trace repeats the exposed route IDs in every turn and names no catalog digest; it is
    read into the current shape with the same information (``catalog_digest`` null). JSON text of the
    current version is validated straight from the text (pydantic's own parser: no ``json.loads``
    first); anything else takes the checked path below, which names what is wrong.
    """
    if isinstance(data, str | bytes):
        current = _current_version(data)
        if current is not None:
            return current
        data = json.loads(data)
    if not isinstance(data, Mapping):
        raise SchemaRouterError("trace: not a JSON object")
    raw = dict(data)
    version = raw.get("trace_version")
    if version not in READABLE_TRACE_VERSIONS:
        readable = ", ".join(map(str, READABLE_TRACE_VERSIONS))
        raise SchemaRouterError(f"trace: version {version!r} is not readable; readable: {readable}")
    if version == 1:
        raw = _upgrade_v1(raw)
    return EpisodeTrace.model_validate(raw)


def _current_version(text: str | bytes) -> EpisodeTrace | None:
    """``text`` as a trace when it is one of the current version that says so; None otherwise."""
    try:
        trace = EpisodeTrace.model_validate_json(text)
    except ValidationError:
        return None
    stated = "trace_version" in trace.model_fields_set and trace.trace_version == TRACE_VERSION
    return trace if stated else None


def _upgrade_v1(raw: dict[str, Any]) -> dict[str, Any]:
    table = ExposureTable()
    initial = table.ref(raw.get("initial_exposure") or [])
    turns = []
    for t in raw.get("turns") or []:
        turn = {k: v for k, v in t.items() if k != "exposed_route_ids"}
        turn["exposure"] = table.ref(t.get("exposed_route_ids") or [])
        turns.append(turn)
    return {
        **raw,
        "trace_version": TRACE_VERSION,
        "catalog_digest": None,
        "exposures": table.lists,
        "initial_exposure": initial,
        "turns": turns,
    }


class ExposureTable:
    """Distinct exposed route-ID lists in order of first use, each referred to by its index."""

    def __init__(self) -> None:
        self.lists: list[list[str]] = []
        self._index: dict[tuple[str, ...], int] = {}

    def ref(self, route_ids: tuple[str, ...] | list[str]) -> int:
        key = route_ids if isinstance(route_ids, tuple) else tuple(route_ids)
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.lists)
            self.lists.append(list(key))
        return index
