"""What the state boundary implements: the state fields the engine can observe and type, statuses,
error classes and the patterns names must match.

These are the runtime's capabilities, not an experiment's protocol: an experiment's state contract
(its state_contract.yaml, checked against its protocol.yaml) must ask for exactly what is implemented,
which ``contract_drift`` checks when the state-aware retriever is built. The contract's forbidden items
and the condition names the guard refuses come from the compiled experiment (``guard.GuardVocabulary``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal, get_args

CONTRACT_VERSION = 1

# The nine state fields, in the contract's order. The original query is the tenth allowed item and
# travels beside the state, never inside it.
STATE_FIELDS: tuple[str, ...] = (
    "executed_route_ids",
    "observed_field_names",
    "observed_semantic_ids",
    "observed_value_types",
    "observed_units",
    "stable_identifiers",
    "last_execution_status",
    "last_error_class",
    "task_incomplete",
)
QUERY_ITEM = "original_query"

# Fields a successor's contract may add, after the nine and in this order: the typed facts a gate
# refusal makes observable (issue #25). A contract that declares none is 0.14's, byte for byte.
DECLARABLE_FIELDS: tuple[str, ...] = (
    "last_attempted_route_id",
    "missing_input_semantic_ids",
    "attempt_count",
)


# The type each declarable field must be declared with (state_contract.yaml ``allowed[].type``).
DECLARABLE_TYPES: dict[str, dict[str, str]] = {
    "last_attempted_route_id": {"kind": "optional", "items": "route_id"},
    "missing_input_semantic_ids": {"kind": "set", "items": "semantic_id"},
    "attempt_count": {"kind": "count"},
}


def declared_fields(allowed_names: tuple[str, ...]) -> tuple[str, ...]:
    """The declarable fields a contract's ``allowed`` list adds to the nine (in the list's order)."""
    return tuple(name for name in allowed_names if name in DECLARABLE_FIELDS)


ExecutionStatus = Literal["none", "ok", "error", "blocked"]
ErrorClass = Literal[
    "MISSING_INPUT",
    "INVALID_TYPE",
    "UNIT_MISMATCH",
    "AUTH_EXPIRED",
    "NOT_FOUND",
    "CONFLICT",
    "RATE_LIMITED",
    "PERMISSION_DENIED",
    "UNEXPOSED",
    "UNAUTHORIZED_DESTRUCTIVE",
]
EXECUTION_STATUSES: tuple[str, ...] = get_args(ExecutionStatus)
ERROR_CLASSES: tuple[str, ...] = get_args(ErrorClass)
JSON_TYPES: tuple[str, ...] = ("string", "number", "integer", "boolean", "array", "object")

IDENTIFIER_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"
# Route IDs, field names, semantic IDs, dimensions and qualifiers: one token, no whitespace, quotes,
# braces or slashes, so no sentence can ride in as a "name". Not in the contract file; a boundary rule.
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"
UNIT_PATTERN = r"^[A-Za-z0-9°%µ][A-Za-z0-9°%µ/_.^-]{0,31}$"

_identifier_re = re.compile(IDENTIFIER_PATTERN)
_name_re = re.compile(NAME_PATTERN)
_unit_re = re.compile(UNIT_PATTERN)


def is_identifier(value: str) -> bool:
    return _identifier_re.fullmatch(value) is not None


def is_name(value: str) -> bool:
    return _name_re.fullmatch(value) is not None


def is_unit(value: str) -> bool:
    return _unit_re.fullmatch(value) is not None


def contract_drift(raw: Mapping[str, Any]) -> list[str]:
    """Differences between a parsed spec/state_contract.yaml and the constants above (empty if none)."""
    drift: list[str] = []

    def differ(what: str, spec_value: Any, pinned: Any) -> None:
        if spec_value != pinned:
            drift.append(f"state_contract.{what}: spec has {spec_value!r}, runtime pins {pinned!r}")

    differ("version", raw.get("version"), CONTRACT_VERSION)
    differ("query.name", (raw.get("query") or {}).get("name"), QUERY_ITEM)
    names = tuple(a.get("name") for a in raw.get("allowed", []))
    declared = declared_fields(names)
    pinned = (*STATE_FIELDS, *(f for f in DECLARABLE_FIELDS if f in declared))
    differ("allowed", names, pinned)
    for entry in raw.get("allowed", []):
        if entry.get("name") in DECLARABLE_TYPES:
            declared_type = {k: v for k, v in (entry.get("type") or {}).items() if v is not None}
            differ(f"allowed.{entry['name']}.type", declared_type, DECLARABLE_TYPES[entry["name"]])
    allowed = {a.get("name"): a for a in raw.get("allowed", [])}
    status_type = (allowed.get("last_execution_status") or {}).get("type", {})
    differ("allowed.last_execution_status.values", tuple(status_type.get("values", ())), EXECUTION_STATUSES)
    differ("identifier_pattern", raw.get("identifier_pattern"), IDENTIFIER_PATTERN)
    differ("error_classes", tuple(raw.get("error_classes", ())), ERROR_CLASSES)
    serialization = raw.get("serialization") or {}
    differ("serialization.standard", serialization.get("standard"), "RFC 8785")
    differ("serialization.joiner", serialization.get("joiner"), "\n")
    differ("free_text_in_retrieval", raw.get("free_text_in_retrieval"), "never")
    return drift
