"""What an agent is: something that looks at one turn's view and decides.

Decisions are a tool call, a final answer, or a statement that it cannot proceed. A model turn with
no tool call ends the episode, as a chat completion without a tool call does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from schemarouter.runtime.catalog.model import Endpoint
from schemarouter.runtime.prompt import HistoryEntry, Prompt


@dataclass(frozen=True)
class ToolCall:
    tool_name: str
    arguments: dict[str, Any]
    kind: str = "tool_call"


@dataclass(frozen=True)
class FinalAnswer:
    values: dict[str, Any] = field(default_factory=dict)
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


class Agent(Protocol):
    name: str

    def decide(self, view: AgentView) -> Decision: ...
