"""Deterministic simulated execution: a pure function of a task's world and a call's arguments."""

from schemarouter.runtime.simulator.binding import bind_arguments
from schemarouter.runtime.simulator.calls import ExecutedCall
from schemarouter.runtime.simulator.execute import execute
from schemarouter.runtime.simulator.result import ObservedField, ToolResult
from schemarouter.runtime.simulator.world import Session, World

__all__ = ["ExecutedCall", "ObservedField", "Session", "ToolResult", "World", "bind_arguments", "execute"]
