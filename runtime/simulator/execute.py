"""``execute(endpoint, arguments, world) -> (ToolResult, World)``: pure and deterministic.

Checks run in this order, the first failure answering with its typed error: argument schema
(MISSING_INPUT, INVALID_TYPE), the world's rate limits (RATE_LIMITED), the route's required role
(PERMISSION_DENIED), the realm's session (AUTH_EXPIRED), declared unit arguments (UNIT_MISMATCH);
then the route's operation (NOT_FOUND, CONFLICT, UNIT_MISMATCH from ``ops``). A failed call never
changes the world.
"""

from __future__ import annotations

from collections.abc import Mapping

from runtime.catalog.model import Endpoint
from runtime.core.json_value import JSONObject, JSONValue
from runtime.simulator.ops import OPS, Outcome
from runtime.simulator.result import ObservedField, ToolResult
from runtime.simulator.validate import argument_error
from runtime.simulator.world import World

ERROR_MESSAGES: dict[str, str] = {
    "MISSING_INPUT": "A required argument is missing",
    "INVALID_TYPE": "An argument has the wrong type or value",
    "UNIT_MISMATCH": "A quantity is in a unit this endpoint does not accept",
    "AUTH_EXPIRED": "The access token for this service has expired",
    "NOT_FOUND": "The requested resource was not found",
    "CONFLICT": "The request conflicts with the current state of the resource",
    "RATE_LIMITED": "Too many requests; retry after 60 seconds",
    "PERMISSION_DENIED": "The caller lacks the role this operation requires",
}


def _precheck(endpoint: Endpoint, args: JSONObject, world: World) -> tuple[str, str] | None:
    error = argument_error(endpoint, args)
    if error:
        return error
    b = endpoint.behavior
    if endpoint.route_id in world.rate_limited:
        return "RATE_LIMITED", "quota exhausted for this endpoint"
    role = b.get("requires_role")
    if role and role not in world.roles:
        return "PERMISSION_DENIED", f"requires role '{role}'"
    realm = b.get("realm")
    session = world.sessions.get(realm) if realm else None
    if session is not None and session.status == "expired":
        return "AUTH_EXPIRED", f"session for realm '{realm}' expired; refresh it and retry"
    for name, accepted in b.get("unit_args", {}).items():
        if name in args and args[name] not in accepted:
            return "UNIT_MISMATCH", f"'{name}' is {args[name]!r}; this endpoint accepts {', '.join(accepted)}"
    return None


def execute(
    endpoint: Endpoint, arguments: Mapping[str, JSONValue] | JSONValue, world: World
) -> tuple[ToolResult, World]:
    """Run one call against a world. Returns the typed result and the (possibly new) world.

    ``arguments`` is what the model sent; anything but an object fails the schema check."""
    if isinstance(arguments, Mapping):
        args: JSONObject = dict(arguments)
        error = _precheck(endpoint, args, world)
    else:
        args, error = {}, argument_error(endpoint, arguments)
    outcome = None
    if error is None:
        outcome = OPS[endpoint.behavior["op"]](endpoint, args, world)
        error = outcome.error
    if error is not None or outcome is None:
        error_class, detail = error if error else ("INVALID_TYPE", "invalid call")
        message = f"{ERROR_MESSAGES.get(error_class, error_class)}: {detail}."
        result = ToolResult(
            route_id=endpoint.route_id,
            status="error",
            error_class=error_class,
            message=message,
            side_effect=endpoint.side_effect,
        )
        return result, world
    return _ok(endpoint, outcome, world), outcome.world


def _ok(endpoint: Endpoint, outcome: Outcome, before: World) -> ToolResult:
    fields = tuple(ObservedField.of(f, outcome.values.get(f.name)) for f in endpoint.outputs)
    notes = [n for n in (endpoint.behavior.get("notice"), before.messages.get(endpoint.route_id)) if n]
    return ToolResult(
        route_id=endpoint.route_id,
        status="ok",
        fields=fields,
        message=" ".join(notes) if notes else None,
        side_effect=endpoint.side_effect,
    )
