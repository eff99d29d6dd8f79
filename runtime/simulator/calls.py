"""One executed call as the task check and the plan state machine read it."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from runtime.core.frozen_model import FrozenModel
from runtime.simulator.result import ToolResult


class ExecutedCall(FrozenModel):
    """A call that the gate allowed and the simulator executed, with its typed result."""

    route_id: str = Field(description="The executed route.")
    arguments: dict[str, Any] = Field(description="The arguments it was executed with.")
    result: ToolResult = Field(description="The simulator's typed result.")

    @property
    def outcome(self) -> str:
        """``ok`` or the typed error class."""
        return "ok" if self.result.status == "ok" else (self.result.error_class or "error")
