"""The prompt a model sees in one turn, in the OpenAI chat-completions shape.

There is one prompt builder: the engine counts tokens on this object and a model agent sends exactly
this object (``messages`` and ``tools``). Tool results enter the history as the model view of the
typed result plus its free-text ``message``: the model may read free text, the retriever never does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from schemarouter.runtime.catalog.model import Endpoint
from schemarouter.runtime.simulator.result import ToolResult


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class HistoryEntry:
    """One past tool turn as the agent experienced it."""

    turn: int
    tool_name: str
    route_id: str | None
    arguments: dict[str, Any]
    status: str  # ok | error | blocked
    error_class: str | None
    model_view: dict[str, Any]
    result: ToolResult | None  # the typed result when the gate allowed the call; None when blocked

    def call_id(self) -> str:
        return f"call_{self.turn}"


@dataclass(frozen=True)
class Prompt:
    """Messages and tools for one model turn."""

    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...]
    tool_texts: tuple[str, ...]

    def token_parts(self) -> list[tuple[str, str]]:
        """(role, content text) pairs that the token counter charges."""
        parts: list[tuple[str, str]] = []
        for m in self.messages:
            if m.get("tool_calls"):
                content = _dumps([c["function"] for c in m["tool_calls"]])
            else:
                content = m.get("content") or ""
            parts.append((m["role"], content))
        return parts


def build_prompt(
    *, system_prompt: str, query: str, history: tuple[HistoryEntry, ...], exposed: tuple[Endpoint, ...]
) -> Prompt:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system_prompt},
        {"role": "user", "content": query},
    ]
    for h in history:
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": h.call_id(),
                        "type": "function",
                        "function": {"name": h.tool_name, "arguments": _dumps(h.arguments)},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": h.call_id(), "content": _dumps(h.model_view)})
    return Prompt(
        messages=tuple(messages),
        tools=tuple(e.tool_schema() for e in exposed),
        tool_texts=tuple(e.tool_schema_json() for e in exposed),
    )
