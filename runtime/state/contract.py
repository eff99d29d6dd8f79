"""The frozen state contract (spec/state_contract.yaml) as constants the boundary enforces.

The runtime does not read YAML at import time, so the contract's content is pinned here and
``contract_drift`` compares it with the spec file; a test and ``sr verify`` keep the two equal.
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

# The seven forbidden items of the seed, each with the key names a smuggling attempt might use.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "future_required_route_ids": (
        "future_routes",
        "future_route_ids",
        "remaining_routes",
        "required_routes",
        "plan",
    ),
    "gold_next_route_id": ("gold_next_route", "next_route", "next_route_id", "gold_route", "expected_route"),
    "oracle_task_graph": ("task_graph", "oracle_graph", "dependency_graph", "gold_plan"),
    "hidden_expected_answer": ("expected_answer", "gold_answer", "answer"),
    "hidden_reference_facts": ("reference_facts", "world", "hidden_facts", "expected_world"),
    "condition_name": ("condition_id", "experimental_condition"),
    "schemarouter_rank": ("rank", "rank_score", "score", "rank_position", "position"),
}

# The condition IDs that name a research condition unambiguously (spec/conditions.yaml). A value
# carrying one is the condition's name smuggled in; FULL and ORACLE are ordinary words and are
# caught only as keys (condition_id, experimental_condition).
CONDITION_NAMES: tuple[str, ...] = ("SR-5-STATIC", "SR-PROGRESSIVE-STATIC", "SR-5-STATE-AWARE")

_identifier_re = re.compile(IDENTIFIER_PATTERN)
_name_re = re.compile(NAME_PATTERN)
_unit_re = re.compile(UNIT_PATTERN)


def is_identifier(value: str) -> bool:
    return _identifier_re.fullmatch(value) is not None


def is_name(value: str) -> bool:
    return _name_re.fullmatch(value) is not None


def is_unit(value: str) -> bool:
    return _unit_re.fullmatch(value) is not None


def conditions_drift(raw_conditions: Mapping[str, Any]) -> list[str]:
    """Differences between spec/conditions.yaml's SR condition IDs and CONDITION_NAMES (empty if none)."""
    spec_names = tuple(
        c.get("id") for c in raw_conditions.get("conditions", []) if str(c.get("id", "")).startswith("SR-")
    )
    if spec_names != CONDITION_NAMES:
        return [f"conditions: SR condition ids {spec_names!r}, state guard pins {CONDITION_NAMES!r}"]
    return []


def contract_drift(raw: Mapping[str, Any]) -> list[str]:
    """Differences between a parsed spec/state_contract.yaml and the constants above (empty if none)."""
    drift: list[str] = []

    def differ(what: str, spec_value: Any, pinned: Any) -> None:
        if spec_value != pinned:
            drift.append(f"state_contract.{what}: spec has {spec_value!r}, runtime pins {pinned!r}")

    differ("version", raw.get("version"), CONTRACT_VERSION)
    differ("query.name", (raw.get("query") or {}).get("name"), QUERY_ITEM)
    differ("allowed", tuple(a.get("name") for a in raw.get("allowed", [])), STATE_FIELDS)
    allowed = {a.get("name"): a for a in raw.get("allowed", [])}
    status_type = (allowed.get("last_execution_status") or {}).get("type", {})
    differ("allowed.last_execution_status.values", tuple(status_type.get("values", ())), EXECUTION_STATUSES)
    differ("identifier_pattern", raw.get("identifier_pattern"), IDENTIFIER_PATTERN)
    differ("error_classes", tuple(raw.get("error_classes", ())), ERROR_CLASSES)
    spec_forbidden = {f.get("id"): tuple(f.get("aliases", ())) for f in raw.get("forbidden", [])}
    differ("forbidden", spec_forbidden, FORBIDDEN)
    serialization = raw.get("serialization") or {}
    differ("serialization.standard", serialization.get("standard"), "RFC 8785")
    differ("serialization.joiner", serialization.get("joiner"), "\n")
    differ("free_text_in_retrieval", raw.get("free_text_in_retrieval"), "never")
    return drift
