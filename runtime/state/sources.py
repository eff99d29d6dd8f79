"""The closed vocabulary of state-field sources: which typed fact a field is derived from, and how.

A contract field names its source (``source: attempt.route_id``); the state boundary derives the
field's value from that typed fact alone, at each transition:

- ``result.*``: the typed result of a call the gate allowed and the simulator executed (its route,
  and on success its typed output fields), accumulated over the episode;
- ``refusal.*``: the gate's typed refusal of the last attempt;
- ``attempt.*``: every attempt, executed or refused (its status, error class, registered route, count);
- ``engine.task_incomplete``: the engine's deterministic flag.

Each source is held by the kinds it lists (``holds``): a field whose kind cannot hold its source is
refused by ``sr validate`` (SC115), as an unknown source is (SC114). There is no source for free text
(``ToolResult.message``), for anything gold or hidden, for the condition, or for a rank.

The twelve fields written before a contract could name a source (0.14's nine and the three of issue
#25) take the source their name has always meant (``IMPLIED_SOURCES``); any other field names its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from runtime.core.json_value import JSONValue
from runtime.simulator.result import ToolResult
from runtime.state.contract import ERROR_CLASSES, EXECUTION_STATUSES, is_identifier
from runtime.state.errors import ContractViolation


@dataclass(frozen=True)
class Refusal:
    """The gate's typed refusal of one attempt: the registered route it resolved to (None for a
    made-up name), its error class, and for MISSING_INPUT the catalog's semantic IDs of the missing
    required inputs."""

    route_id: str | None
    error_class: str
    missing: tuple[str, ...] = ()


def _same(value: Any, _: Any) -> Any:
    return value


@dataclass(frozen=True)
class Source:
    """One typed fact a field may be derived from."""

    code: str
    origin: str
    holds: tuple[str, ...]  # the kind keys (kinds.Kind.key) that can hold it
    noun: str  # what a value is, in messages ("an execution status")
    start: Any  # the value before any attempt
    on_result: Callable[[Any, ToolResult], Any] = _same
    on_refusal: Callable[[Any, Refusal], Any] = _same
    values: tuple[str, ...] | None = None  # an enum source's values: exactly these
    registry: str | None = None  # the catalog names a state file's values must be (state_file.Vocabulary)
    description: str = field(default="", compare=False)


def _executed(value: Any, r: ToolResult) -> Any:
    return (*value, r.route_id)


def _observed(part: Callable[[Any], Any]) -> Callable[[Any, ToolResult], Any]:
    def observe(value: Any, r: ToolResult) -> Any:
        if r.status == "error":
            return value
        return (*value, *(x for x in map(part, r.fields) if x is not None))

    return observe


def _unit(f: Any) -> Any:
    return None if f.unit is None else {"unit": f.unit, "dimension": f.dimension, "qualifier": f.qualifier}


def _identifier(f: Any) -> Any:
    # A null identifier (an unpaid order's charge_id, say) is no identifier: nothing to carry.
    if not f.stable_identifier or f.value is None:
        return None
    value = str(f.value) if isinstance(f.value, int) and not isinstance(f.value, bool) else f.value
    if not isinstance(value, str) or not is_identifier(value):
        raise ContractViolation(
            f"stable identifier {f.value!r} does not match the identifier pattern", path=f"fields.{f.name}"
        )
    return {"semantic_id": f.semantic_id, "value": value}


def _missing(_: Any, r: Refusal) -> Any:
    return r.missing if r.error_class == "MISSING_INPUT" else ()


def _count(value: Any, _: Any) -> Any:
    return value + 1


_RESULT = "the typed result of an executed call"
_ATTEMPT = "every attempt: the typed result, or the gate's typed refusal"
_REFUSAL = "the gate's typed refusal"

SOURCES: Final[dict[str, Source]] = {
    s.code: s
    for s in (
        Source("result.route_ids", _RESULT, ("set:route_id",), "route IDs", (), _executed,
               registry="route_ids", description="Routes the gate allowed and the simulator executed."),
        Source("result.field_names", _RESULT, ("set:field_name",), "field names", (),
               _observed(lambda f: f.name), registry="field_names",
               description="Names of the typed output fields of completed results."),
        Source("result.semantic_ids", _RESULT, ("set:semantic_id",), "semantic IDs", (),
               _observed(lambda f: f.semantic_id), registry="semantic_ids",
               description="Semantic IDs of those fields."),
        Source("result.value_types", _RESULT, ("set:json_type",), "JSON types", (),
               _observed(lambda f: f.json_type), description="Declared JSON types of those fields."),
        Source("result.units", _RESULT, ("set:unit_triple",), "unit triples", (), _observed(_unit),
               registry="units", description="Unit triples of those fields that carry a unit."),
        Source("result.identifiers", _RESULT, ("set:identifier",), "stable identifiers", (),
               _observed(_identifier), registry="identifiers",
               description="{semantic_id, value} of stable-identifier fields with a value."),
        Source("attempt.status", _ATTEMPT, ("enum",), "an execution status", "none",
               lambda _, r: r.status, lambda _, r: "blocked", values=EXECUTION_STATUSES,
               description="Status of the last attempt: none, ok, error or blocked."),
        Source("attempt.error_class", _ATTEMPT, ("optional_enum",), "a contract error class", None,
               lambda _, r: r.error_class if r.status == "error" else None,
               lambda _, r: r.error_class, values=ERROR_CLASSES,
               description="Typed error class of the last attempt, or null."),
        Source("engine.task_incomplete", "the engine's deterministic flag", ("boolean",), "a boolean", True,
               description="True until the typed outputs the final answer needs have all been observed."),
        Source("attempt.route_id", _ATTEMPT, ("optional:route_id",), "a route ID", None,
               lambda _, r: r.route_id, lambda _, r: r.route_id, registry="route_ids",
               description="The registered route of the last attempt; null for none or a made-up name."),
        Source("refusal.missing_inputs", _REFUSAL, ("set:semantic_id",), "input semantic IDs", (),
               lambda _, r: (), _missing, registry="input_semantic_ids",
               description="Semantic IDs of the required inputs a MISSING_INPUT refusal named."),
        Source("attempt.count", _ATTEMPT, ("count",), "attempts", 0, _count, _count,
               description="Tool attempts so far, executed or refused."),
    )
}  # fmt: skip

# The source of each field written before a contract could name one (0.14's nine, issue #25's three).
IMPLIED_SOURCES: Final[dict[str, str]] = {
    "executed_route_ids": "result.route_ids",
    "observed_field_names": "result.field_names",
    "observed_semantic_ids": "result.semantic_ids",
    "observed_value_types": "result.value_types",
    "observed_units": "result.units",
    "stable_identifiers": "result.identifiers",
    "last_execution_status": "attempt.status",
    "last_error_class": "attempt.error_class",
    "task_incomplete": "engine.task_incomplete",
    "last_attempted_route_id": "attempt.route_id",
    "missing_input_semantic_ids": "refusal.missing_inputs",
    "attempt_count": "attempt.count",
}


def source_code(name: str, declared: JSONValue) -> str | None:
    """The source a field names, or the one its name implies when it names none (else None)."""
    if declared is not None:
        return str(declared)
    return IMPLIED_SOURCES.get(name)
