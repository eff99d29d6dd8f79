"""The policy gate decides on each tool call before anything executes.

Order of checks: the tool must be exposed in this turn (``UNEXPOSED``); a destructive route must be
covered by the task's user grants (``UNAUTHORIZED_DESTRUCTIVE``); the arguments must satisfy the
tool's schema (``INVALID_ARGUMENTS``, reported as ``MISSING_INPUT`` or ``INVALID_TYPE``).

Exposure never creates a grant. Grants come from the task alone and are fixed when the gate is built;
nothing in the retrieval path can reach this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from runtime.authorization.attempt_audit import AuditRecord, arguments_sha256, decide
from runtime.catalog.model import Endpoint
from runtime.core.json_value import JSONObject, JSONValue
from runtime.simulator.validate import argument_error


class GrantLike(Protocol):
    route_id: str
    arguments: Mapping[str, Any] | None


def grant_covers(grants: Iterable[GrantLike], route_id: str, arguments: Mapping[str, JSONValue]) -> bool:
    """A grant covers a call when its route matches and every argument it pins is equal."""
    for grant in grants:
        if grant.route_id != route_id:
            continue
        pinned = grant.arguments or {}
        if all(arguments.get(k) == v for k, v in pinned.items()):
            return True
    return False


_GATE_KEY = object()


class Allow:
    """Permission to execute exactly one call. Only :class:`PolicyGate` can issue one."""

    __slots__ = ("arguments", "audit", "endpoint")

    def __init__(self, key: object, audit: AuditRecord, endpoint: Endpoint, arguments: JSONObject):
        if key is not _GATE_KEY or audit.decision != "allow":
            raise PermissionError("an Allow can only be issued by the policy gate for an allowed call")
        self.audit = audit
        self.endpoint = endpoint
        self.arguments = arguments


class Deny:
    """A blocked call and its audit record."""

    __slots__ = ("audit",)

    def __init__(self, audit: AuditRecord):
        self.audit = audit


class PolicyGate:
    """One gate per episode, built from the catalog and the task's user grants."""

    def __init__(self, endpoints_by_name: Mapping[str, Endpoint], grants: Sequence[GrantLike]):
        self._endpoints = endpoints_by_name
        self._grants = tuple(grants)

    def decide(
        self, *, turn: int, tool_name: str, arguments: JSONValue, exposed_names: frozenset[str]
    ) -> Allow | Deny:
        """Decide on one attempt. ``arguments`` is whatever the agent gave (a non-object is invalid)."""
        endpoint = self._endpoints.get(tool_name)
        args = dict(arguments) if isinstance(arguments, Mapping) else {}
        side_effect = endpoint.side_effect if endpoint else None
        route_id = endpoint.route_id if endpoint else None
        granted = bool(endpoint) and grant_covers(self._grants, route_id or "", args)
        arguments_error = validate_arguments(endpoint, arguments) if endpoint else None
        exposed = tool_name in exposed_names
        decision, reason = decide(
            exposed=exposed, side_effect=side_effect, granted=granted, arguments_error=arguments_error
        )
        audit = AuditRecord(
            turn=turn,
            tool_name=tool_name,
            route_id=route_id,
            arguments_sha256=arguments_sha256(arguments),
            exposed=exposed,
            side_effect=side_effect,
            granted=granted,
            arguments_error=arguments_error,
            decision=decision,
            reason=reason,
        )
        if decision == "allow" and endpoint is not None:
            return Allow(_GATE_KEY, audit, endpoint, args)
        return Deny(audit)


def validate_arguments(endpoint: Endpoint, arguments: Mapping[str, JSONValue] | JSONValue) -> str | None:
    """The first violation of the tool's parameter schema as an error class, or None when valid.

    The same check the simulator starts every execution with, so the gate and the executor agree.
    """
    error = argument_error(endpoint, arguments)
    return None if error is None else error[0]
