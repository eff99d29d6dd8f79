"""What the state boundary implements besides its fields' kinds and sources: the contract version,
statuses, error classes and the patterns names must match.

These are the runtime's capabilities, not an experiment's protocol: an experiment's state contract
(its state_contract.yaml, checked against its protocol.yaml) must ask for what is implemented, which
``drift.contract_drift`` checks when the state-aware retriever is built. The fields, their order, kinds
and sources, the forbidden items and the condition names the guard refuses come from the compiled
experiment (``guard.GuardVocabulary``, ``layout.py``).
"""

from __future__ import annotations

import re
from typing import Literal, get_args

CONTRACT_VERSION = 1

# The original query is the one allowed item that is not a state field: it travels beside the state,
# never inside it. The state fields themselves are the contract's (layout.py).
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

_identifier_re = re.compile(IDENTIFIER_PATTERN)
_name_re = re.compile(NAME_PATTERN)
_unit_re = re.compile(UNIT_PATTERN)


def is_identifier(value: str) -> bool:
    return _identifier_re.fullmatch(value) is not None


def is_name(value: str) -> bool:
    return _name_re.fullmatch(value) is not None


def is_unit(value: str) -> bool:
    return _unit_re.fullmatch(value) is not None
