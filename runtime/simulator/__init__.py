"""Deterministic simulated execution: a pure function of a task's world and a call's arguments."""

from schemarouter.runtime.simulator.result import ObservedField, ToolResult

__all__ = ["ObservedField", "ToolResult"]
