"""What an agent is: something that looks at one turn's view and decides.

Decisions are a tool call, a final answer, or a statement that it cannot proceed. A model turn with
no tool call ends the episode, as a chat completion without a tool call does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from runtime.catalog.model import Endpoint
from runtime.core.json_value import JSONObject
from runtime.prompt import ExposedTools, HistoryEntry, Prompt


@dataclass(frozen=True)
class ToolCall:
    tool_name: str
    arguments: JSONObject
    kind: str = "tool_call"


@dataclass(frozen=True)
class FinalAnswer:
    values: JSONObject = field(default_factory=dict)
    text: str = ""
    kind: str = "final_answer"


@dataclass(frozen=True)
class CannotProceed:
    reason: str
    kind: str = "cannot_proceed"


@dataclass(frozen=True)
class BadOutput:
    """A model's output that is not a usable decision (malformed call, non-JSON arguments, ...).

    It is a failed turn that the gate records, never a crash.
    """

    error: str
    raw: str = ""
    tool_name: str | None = None
    kind: str = "bad_output"


Decision = ToolCall | FinalAnswer | CannotProceed | BadOutput


@dataclass(frozen=True)
class AgentView:
    """What an agent sees at one decision point: the prompt, and the exposed tools as typed endpoints."""

    turn: int
    prompt: Prompt
    exposed: tuple[Endpoint, ...]
    history: tuple[HistoryEntry, ...]
    # The rendered set behind ``exposed`` when the engine built the view: its lookups are built once per
    # set, not once per turn.
    tools: ExposedTools | None = None

    def exposed_by_route(self) -> Mapping[str, Endpoint]:
        """The exposed endpoints by route ID."""
        if self.tools is not None:
            return self.tools.by_route
        return {e.route_id: e for e in self.exposed}


class Agent(Protocol):
    name: str

    def decide(self, view: AgentView) -> Decision: ...
