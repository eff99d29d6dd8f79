"""A chat-completions response as one decision; never raises on model output.

Every part of ``choices[0]`` is read:

* ``message.refusal`` (OpenAI) is a model turn without a call: ``CannotProceed("refusal: ...")``;
* ``finish_reason`` ``content_filter`` is a ``BadOutput``; ``length`` without a complete call (text cut
  off at ``max_tokens``) is a ``BadOutput``; ``stop``, ``tool_calls`` and ``function_call`` are read
  by what the message holds;
* every entry of ``tool_calls`` is read: with ``parallel_tool_calls`` false (the only setting the
  engine runs: one gated call per turn), more than one call is a violation, a ``BadOutput`` naming
  the count, which the engine gates and records as a failed turn;
* text beside a tool call is kept in the record, the call is the decision;
* a call of ``final_answer`` is the final answer when the prompt offered it as a tool (agent.yaml
  ``answer_action: named``); otherwise it is a call like any other, which the gate judges;
* the legacy ``function_call`` is read only when there is no ``tool_calls`` and ``finish_reason`` is
  ``function_call`` (llama.cpp fills it with a wrong name beside ``tool_calls``).
"""

from __future__ import annotations

import json
from typing import Any

from runtime.agents.protocol import BadOutput, CannotProceed, Decision, FinalAnswer, ToolCall
from runtime.prompt import ANSWER_ACTION


def _raw(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:2000]


def parse_response(response: dict[str, Any], exposed_names: set[str], constrained: bool = False) -> Decision:
    try:
        choice = response["choices"][0]
        message = choice["message"]
        if not isinstance(message, dict):
            raise TypeError("message is not an object")
    except (KeyError, IndexError, TypeError):
        return BadOutput(error="response has no choices[0].message", raw=_raw(response))
    finish = choice.get("finish_reason") if isinstance(choice, dict) else None
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal.strip():
        return CannotProceed(reason=f"refusal: {refusal[:500]}")
    if finish == "content_filter":
        return BadOutput(
            error="finish_reason content_filter: the server withheld the output", raw=_raw(message)
        )
    tool_calls = message.get("tool_calls") or []
    if not isinstance(tool_calls, list):
        return BadOutput(error="tool_calls is not a list", raw=_raw(message))
    raw_content = message.get("content")
    content: str = raw_content if isinstance(raw_content, str) else ""
    if not tool_calls and finish == "function_call" and isinstance(message.get("function_call"), dict):
        tool_calls = [{"function": message["function_call"]}]
    if len(tool_calls) > 1:
        names = [
            str((c.get("function") or {}).get("name")) if isinstance(c, dict) else "?" for c in tool_calls
        ]
        return BadOutput(
            error=f"{len(tool_calls)} tool calls in one response ({', '.join(names)}); "
            "parallel_tool_calls is false",
            raw=_raw(tool_calls),
            tool_name=names[0] if names[0] != "None" else None,
        )
    if tool_calls:
        decision = _parse_call(tool_calls[0])
        if (
            isinstance(decision, ToolCall)
            and decision.tool_name == ANSWER_ACTION
            and ANSWER_ACTION in exposed_names
        ):
            # The prompt named the answer action as a tool (agent.yaml answer_action: named).
            return FinalAnswer(text=json.dumps(decision.arguments, ensure_ascii=False))
        return decision
    if finish == "length":
        return BadOutput(
            error="the output was cut off at max_tokens (finish_reason length)", raw=content[:2000]
        )
    if constrained:
        return _parse_constrained(content)
    if not content.strip():
        return BadOutput(error="empty response: no tool call and no text")
    return FinalAnswer(text=content)


def _parse_call(call: Any) -> Decision:
    if not isinstance(call, dict):
        return BadOutput(error="a tool call is not an object", raw=_raw(call))
    function = call.get("function") or {}
    name = function.get("name") if isinstance(function, dict) else None
    raw_args = function.get("arguments") if isinstance(function, dict) else None
    if not isinstance(name, str) or not name:
        return BadOutput(error="tool call without a name", raw=_raw(call))
    if raw_args is None:
        return BadOutput(error="tool call without arguments", raw=_raw(call), tool_name=name)
    if isinstance(raw_args, dict):
        args: Any = raw_args
    else:
        try:
            args = json.loads(raw_args)
        except (json.JSONDecodeError, TypeError):
            return BadOutput(error="arguments are not JSON", raw=str(raw_args)[:2000], tool_name=name)
    if not isinstance(args, dict):
        return BadOutput(error="arguments are not a JSON object", raw=str(raw_args)[:2000], tool_name=name)
    return ToolCall(name, args)


def _parse_constrained(content: str) -> Decision:
    try:
        data = json.loads(content)
    except json.JSONDecodeError:
        return BadOutput(error="constrained output is not JSON", raw=content[:2000])
    # ``action`` names the tool (openai_agent.constrained_schema); ``tool`` is read as well, the key of
    # the recorded llama.cpp router fixtures.
    name = data.get("action", data.get("tool")) if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(name, str):
        return BadOutput(error="constrained output lacks a tool name", raw=content[:2000])
    if name == "final_answer":
        return FinalAnswer(text=json.dumps(data.get("arguments", {}), ensure_ascii=False))
    args = data.get("arguments", {})
    if not isinstance(args, dict):
        return BadOutput(error="arguments are not a JSON object", raw=content[:2000], tool_name=name)
    return ToolCall(name, args)
