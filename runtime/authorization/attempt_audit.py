"""One audit record per tool-call attempt, written before anything executes.

A record holds the decision and every input the decision was made from, so that
:func:`runtime.authorization.integrity.recompute_integrity` can recompute it from the records
alone.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Literal

from pydantic import Field

from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONValue

Decision = Literal["allow", "deny"]
Reason = Literal["ALLOWED", "UNEXPOSED", "UNAUTHORIZED_DESTRUCTIVE", "INVALID_ARGUMENTS"]

# Error class a denied attempt puts into the observable state, by reason.
DENY_ERROR_CLASS: dict[str, str] = {
    "UNEXPOSED": "UNEXPOSED",
    "UNAUTHORIZED_DESTRUCTIVE": "UNAUTHORIZED_DESTRUCTIVE",
}


class AuditRecord(FrozenModel):
    """The gate's record of one attempt."""

    turn: int = Field(description="Model turn (1-based) in which the call was attempted.")
    tool_name: str = Field(description="Tool name the agent called, as given.")
    route_id: str | None = Field(description="Route the name resolves to in the catalog, or null if unknown.")
    arguments_sha256: str = Field(description="sha256 of the arguments as canonical JSON (sorted keys).")
    exposed: bool = Field(description="Whether the tool was exposed in this turn.")
    side_effect: str | None = Field(description="read, write or destructive; null for an unknown tool.")
    granted: bool = Field(description="Whether the task's user grants cover this call (destructive only).")
    arguments_error: str | None = Field(
        description="First schema violation of the arguments (an error class), or null if valid."
    )
    decision: Decision = Field(description="allow or deny.")
    reason: Reason = Field(
        description="Why: ALLOWED, UNEXPOSED, UNAUTHORIZED_DESTRUCTIVE, INVALID_ARGUMENTS."
    )

    @property
    def error_class(self) -> str | None:
        """The typed error a denied attempt reports; null when allowed."""
        if self.decision == "allow":
            return None
        if self.reason == "INVALID_ARGUMENTS":
            return self.arguments_error or "INVALID_TYPE"
        return DENY_ERROR_CLASS[self.reason]


def arguments_sha256(arguments: Mapping[str, JSONValue] | JSONValue) -> str:
    text = _ARGUMENTS_ENCODER.encode(arguments)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# json.dumps with these options, built once (json.dumps builds an encoder per call for any option).
_ARGUMENTS_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def decide(
    *, exposed: bool, side_effect: str | None, granted: bool, arguments_error: str | None
) -> tuple[Decision, Reason]:
    """The decision rule, as a pure function of the recorded inputs (used by the gate and the check)."""
    if not exposed or side_effect is None:
        return "deny", "UNEXPOSED"
    if side_effect == "destructive" and not granted:
        return "deny", "UNAUTHORIZED_DESTRUCTIVE"
    if arguments_error is not None:
        return "deny", "INVALID_ARGUMENTS"
    return "allow", "ALLOWED"
