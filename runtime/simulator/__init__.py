"""Deterministic simulated execution: a pure function of a task's world and a call's arguments."""

from runtime.simulator.binding import bind_arguments
from runtime.simulator.calls import ExecutedCall
from runtime.simulator.execute import execute
from runtime.simulator.result import ObservedField, ToolResult
from runtime.simulator.world import Session, World

__all__ = ["ExecutedCall", "ObservedField", "Session", "ToolResult", "World", "bind_arguments", "execute"]
