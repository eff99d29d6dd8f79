"""The engine's prompt as plain chat text, for servers that are not sent a ``tools`` field or whose
chat template drops parts of it.

Two renderings, both documented here and in the agents README, both built from the prompt the engine
counted (the same ``tool_texts``, the same history messages):

* ``text_transcript`` (constrained decoding): the exposed tools' schemas are appended to the system
  message, exactly the texts the engine counts (one per line, after ``TOOLS_HEADER``); each past call
  is an assistant message whose content is ``{"action":"NAME","arguments":{...}}``, the shape the
  constrained output has; each tool result is a user message ``RESULT_PREFIX``.
* ``tool_results_as_text`` (native tools): the messages as sent, except that each ``role: tool``
  result becomes a user message in the same result form, for chat templates with no branch for
  ``role: tool`` (llama.cpp's ``chatml-function-calling`` drops their content).

Result form: ``Result of call_3 (geo_geocode): {"latitude":48.85,"status":"ok"}``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from runtime.agents.chat_shapes import ChatMessage
from runtime.core.json_value import JSONValue

TOOLS_HEADER = "Tools (one JSON schema per line):"
# The schema also admits {"action": "final_answer", ...}; naming it here made a small model copy it at once.
ANSWER_FORM = 'Answer with a JSON object {"action": <tool name>, "arguments": <arguments object>}.'


def _dumps(value: JSONValue) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def result_text(call_id: str, tool_name: str, content: str) -> str:
    return f"Result of {call_id} ({tool_name}): {content}"


def _call_names(messages: Sequence[ChatMessage]) -> dict[str, str]:
    names: dict[str, str] = {}
    for m in messages:
        for call in m.get("tool_calls") or ():
            names[str(call.get("id"))] = str((call.get("function") or {}).get("name"))
    return names


def _result_message(message: ChatMessage, names: dict[str, str]) -> ChatMessage:
    call_id = str(message.get("tool_call_id"))
    return {
        "role": "user",
        "content": result_text(call_id, names.get(call_id, "?"), message.get("content") or ""),
    }


def text_transcript(messages: Sequence[ChatMessage], tool_texts: Sequence[str]) -> list[ChatMessage]:
    """Every message as role and text only; the tools inside the system message."""
    names = _call_names(messages)
    out: list[ChatMessage] = []
    tools_block = "\n".join([TOOLS_HEADER, *tool_texts, ANSWER_FORM])
    for m in messages:
        role = m["role"]
        if role == "system":
            out.append({"role": "system", "content": f"{m.get('content') or ''}\n\n{tools_block}"})
        elif role == "assistant" and m.get("tool_calls"):
            calls = [
                _dumps(
                    {"action": c["function"]["name"], "arguments": _arguments(c["function"].get("arguments"))}
                )
                for c in m["tool_calls"]
            ]
            out.append({"role": "assistant", "content": "\n".join(calls)})
        elif role == "tool":
            out.append(_result_message(m, names))
        else:
            out.append({"role": role, "content": m.get("content") or ""})
    if not any(m["role"] == "system" for m in messages):
        out.insert(0, {"role": "system", "content": tools_block})
    return out


def tool_results_as_text(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """The messages as sent, with each ``role: tool`` result carried as a user message."""
    names = _call_names(messages)
    return [_result_message(m, names) if m["role"] == "tool" else m for m in messages]


def _arguments(raw: JSONValue) -> JSONValue:
    if isinstance(raw, str):
        try:
            parsed: JSONValue = json.loads(raw)
        except json.JSONDecodeError:
            return raw
        return parsed
    return raw
