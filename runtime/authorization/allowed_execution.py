"""Execution accepts only an :class:`Allow`, so nothing runs without the gate's prior allow."""

from __future__ import annotations

from runtime.authorization.execution_gate import Allow
from runtime.simulator import ToolResult
from runtime.simulator.execute import execute
from runtime.simulator.world import World


def execute_allowed(allow: Allow, world: World) -> tuple[ToolResult, World]:
    if not isinstance(allow, Allow) or allow.audit.decision != "allow":
        raise PermissionError("execution needs an Allow issued by the policy gate")
    return execute(allow.endpoint, allow.arguments, world)
