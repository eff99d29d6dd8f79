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

from runtime.agents.protocol import BadOutput, CannotProceed, Decision, FinalAnswer, ToolCall
from runtime.core.json_value import JSONObject, JSONValue
from runtime.prompt import ANSWER_ACTION


def _raw(value: JSONValue) -> str:
    return json.dumps(value, ensure_ascii=False)[:2000]


def parse_response(response: JSONObject, exposed_names: set[str], constrained: bool = False) -> Decision:
    """The decision of a chat-completions ``response`` (its ``choices[0]``), in the order the module
    docstring lists: refusal, content filter, the tool calls, then the text."""
    first = _first_choice(response)
    if first is None:
        return BadOutput(error="response has no choices[0].message", raw=_raw(response))
    choice, message = first
    finish = choice.get("finish_reason")
    withheld = _withheld(message, finish)
    if withheld is not None:
        return withheld
    tool_calls = _tool_calls(message, finish)
    if isinstance(tool_calls, BadOutput):
        return tool_calls
    if len(tool_calls) > 1:
        return _several_calls(tool_calls)
    if tool_calls:
        return _call_decision(tool_calls[0], exposed_names)
    return _text_decision(message, finish, constrained)


def _first_choice(response: JSONObject) -> tuple[JSONObject, JSONObject] | None:
    """``choices[0]`` and its ``message``, when both are objects."""
    choices = response.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    if not isinstance(choice, dict):
        return None
    message = choice.get("message")
    if not isinstance(message, dict):
        return None
    return choice, message


def _withheld(message: JSONObject, finish: JSONValue) -> Decision | None:
    """A refusal, or output the server's content filter withheld; None for anything else."""
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal.strip():
        return CannotProceed(reason=f"refusal: {refusal[:500]}")
    if finish == "content_filter":
        return BadOutput(
            error="finish_reason content_filter: the server withheld the output", raw=_raw(message)
        )
    return None


def _tool_calls(message: JSONObject, finish: JSONValue) -> list[JSONValue] | BadOutput:
    """Every tool call of the message; the legacy ``function_call`` only when there is no
    ``tool_calls`` and ``finish_reason`` is ``function_call``."""
    tool_calls = message.get("tool_calls") or []
    if not isinstance(tool_calls, list):
        return BadOutput(error="tool_calls is not a list", raw=_raw(message))
    legacy = message.get("function_call")
    if not tool_calls and finish == "function_call" and isinstance(legacy, dict):
        return [{"function": legacy}]
    return tool_calls


def _call_name(call: JSONValue) -> str:
    """The function name of one of several calls, as text (``"None"`` without one, ``"?"`` for a call
    that is not an object)."""
    if not isinstance(call, dict):
        return "?"
    function = call.get("function") or {}
    return str(function.get("name") if isinstance(function, dict) else None)


def _several_calls(tool_calls: list[JSONValue]) -> BadOutput:
    """More than one call in a response: parallel_tool_calls is false, so the turn fails, recorded."""
    names = [_call_name(c) for c in tool_calls]
    return BadOutput(
        error=f"{len(tool_calls)} tool calls in one response ({', '.join(names)}); "
        "parallel_tool_calls is false",
        raw=_raw(tool_calls),
        tool_name=names[0] if names[0] != "None" else None,
    )


def _call_decision(call: JSONValue, exposed_names: set[str]) -> Decision:
    """The one call of a response; a ``final_answer`` call is the answer when the prompt offered it."""
    decision = _parse_call(call)
    if (
        isinstance(decision, ToolCall)
        and decision.tool_name == ANSWER_ACTION
        and ANSWER_ACTION in exposed_names
    ):
        # The prompt named the answer action as a tool (agent.yaml answer_action: named).
        return FinalAnswer(text=json.dumps(decision.arguments, ensure_ascii=False))
    return decision


def _text_decision(message: JSONObject, finish: JSONValue, constrained: bool) -> Decision:
    """A response without a tool call: cut off, a constrained call in the text, empty, or the answer."""
    raw_content = message.get("content")
    content: str = raw_content if isinstance(raw_content, str) else ""
    if finish == "length":
        return BadOutput(
            error="the output was cut off at max_tokens (finish_reason length)", raw=content[:2000]
        )
    if constrained:
        return _parse_constrained(content)
    if not content.strip():
        return BadOutput(error="empty response: no tool call and no text")
    return FinalAnswer(text=content)


def _parse_call(call: JSONValue) -> Decision:
    if not isinstance(call, dict):
        return BadOutput(error="a tool call is not an object", raw=_raw(call))
    function = call.get("function") or {}
    name = function.get("name") if isinstance(function, dict) else None
    raw_args = function.get("arguments") if isinstance(function, dict) else None
    if not isinstance(name, str) or not name:
        return BadOutput(error="tool call without a name", raw=_raw(call))
    if raw_args is None:
        return BadOutput(error="tool call without arguments", raw=_raw(call), tool_name=name)
    args = _call_arguments(raw_args, name)
    return args if isinstance(args, BadOutput) else ToolCall(name, args)


def _call_arguments(raw_args: JSONValue, name: str) -> JSONObject | BadOutput:
    """A call's arguments object: as sent, or parsed from its text."""
    if isinstance(raw_args, dict):
        return raw_args
    if not isinstance(raw_args, str):  # what json.loads refuses with a TypeError
        return BadOutput(error="arguments are not JSON", raw=str(raw_args)[:2000], tool_name=name)
    try:
        args = json.loads(raw_args)
    except json.JSONDecodeError:
        return BadOutput(error="arguments are not JSON", raw=raw_args[:2000], tool_name=name)
    if not isinstance(args, dict):
        return BadOutput(error="arguments are not a JSON object", raw=raw_args[:2000], tool_name=name)
    return args


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
