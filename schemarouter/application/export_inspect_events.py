"""One exported episode as an inspect_ai transcript: its messages and its events, built with inspect_ai's
own classes (``ChatMessage*``, ``ModelEvent``, ``ToolEvent``, ``InfoEvent``), so ``inspect view``'s
transcript tab tells the story report.html's trace viewer tells.

Per model turn, in order:

- an ``InfoEvent`` (source ``retrieval``) per retrieval call made before the turn: the query kind, the
  task's query, the contract-visible state the retriever was given (the state after the previous turn;
  none for a call on the original query alone), the exact text sent, the depth and the ranking with
  scores (never the call's wall latency, which is not deterministic);
- a ``ModelEvent``: the messages so far (the user's query and every earlier call and result; the
  engine's system prompt is not stored in the trace and is not reconstructed), the exposed tools as
  ``ToolInfo`` (the schema the model was shown, ``Endpoint.tool_schema``), and the decision as the
  output; its metadata carry the turn, the exposed route IDs, the top 5 of the ranking and the
  engine's token counts;
- for a tool attempt, a ``ToolEvent``: the call, the typed result as JSON, the policy gate's audit
  record in its metadata (``gate``), and an error for a blocked call (``permission``, the gate's
  reason) or an execution error (``unknown``, the typed error class).

After the last turn an ``InfoEvent`` (source ``outcome``) says how the episode ended and why it
failed. Every id and time is derived from the episode (ids from the task, epoch and turn; times the
run's creation time), so the sample's content is the same on every export.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from runtime.catalog.model import Catalog
from runtime.core.json_value import JSONValue
from runtime.engine.trace import TurnRecord
from schemarouter.application.export_tables import Episode

if TYPE_CHECKING:
    from inspect_ai.tool import ToolInfo


@dataclass(frozen=True)
class Transcript:
    """An episode's messages (``EvalSample.messages``) and events (``EvalSample.events``)."""

    messages: list[Any]
    events: list[Any]


def tool_infos(catalog: Catalog) -> dict[str, ToolInfo]:
    """Each endpoint's ``ToolInfo`` by route ID: the schema the engine renders for the model."""
    from inspect_ai.tool import ToolInfo

    return {e.route_id: ToolInfo.model_validate(e.tool_schema()["function"]) for e in catalog.endpoints}


def episode_transcript(
    episode: Episode, *, tools: Mapping[str, ToolInfo], model: str, when: datetime
) -> Transcript:
    """The messages and events of one episode (module docstring)."""
    from inspect_ai.event import InfoEvent
    from inspect_ai.model import ChatMessageUser

    trace = episode.trace
    prefix = f"{trace.task_id}/e{trace.epoch or 1}"
    stamp = _Stamp(prefix, when)
    messages: list[Any] = [ChatMessageUser(id=f"{prefix}/m0", content=episode.task.visible().query)]
    events: list[Any] = []
    state_before: dict[str, Any] | None = None
    for turn in trace.turns:
        events.extend(_retrieval_events(turn, episode, state_before, stamp))
        input_messages = list(messages)
        assistant = _assistant_message(turn, f"{prefix}/m{len(messages)}")
        messages.append(assistant)
        exposed = trace.exposed_route_ids(turn)
        shown = [tools[r] for r in exposed]
        events.append(_model_event(turn, input_messages, assistant, (exposed, shown), model, stamp))
        if assistant.tool_calls:
            tool_message = _tool_message(turn, assistant.tool_calls[0], f"{prefix}/m{len(messages)}")
            messages.append(tool_message)
            events.append(_tool_event(turn, assistant.tool_calls[0], tool_message, stamp))
        if turn.state_after is not None:
            state_before = turn.state_after
    events.append(
        InfoEvent(
            **stamp.fields("outcome"),
            source="outcome",
            data={
                "ended_by": trace.ended_by,
                "passed": trace.passed,
                "milestones": f"{trace.milestones_reached}/{trace.milestones_total}",
                "check_reasons": list(trace.check_reasons),
            },
        )
    )
    return Transcript(messages, events)


class _Stamp:
    """Deterministic ids and times for an episode's events (BaseEvent would draw a uuid and the clock)."""

    def __init__(self, prefix: str, when: datetime) -> None:
        self._prefix, self._when, self._n = prefix, when, 0

    def fields(self, kind: str) -> dict[str, Any]:
        self._n += 1
        return {"uuid": f"{self._prefix}/{self._n:03d}-{kind}", "timestamp": self._when, "working_start": 0.0}


def _retrieval_events(
    turn: TurnRecord, episode: Episode, state_before: dict[str, Any] | None, stamp: _Stamp
) -> list[Any]:
    from inspect_ai.event import InfoEvent

    events = []
    for index, call in enumerate(turn.retrieval_calls, start=1):
        uses_state = call.get("query_kind") != "original"
        events.append(
            InfoEvent(
                **stamp.fields("retrieval"),
                source="retrieval",
                data={
                    "turn": turn.turn,
                    "call": index,
                    "query_kind": call.get("query_kind"),
                    "query": episode.task.visible().query,
                    "state": state_before if uses_state else None,
                    "text_sent": call.get("text"),
                    "depth": call.get("depth"),
                    "ranking": _ranking(_listed(call.get("route_ids")), _listed(call.get("scores"))),
                },
            )
        )
    return events


def _listed(value: JSONValue) -> list[JSONValue]:
    """A recorded list (route IDs, scores); absent or not a list: none."""
    return value if isinstance(value, list) else []


def _ranking(route_ids: Sequence[JSONValue], scores: Sequence[JSONValue]) -> list[Any]:
    return [
        {"rank": rank, "route_id": route, "score": score}
        for rank, (route, score) in enumerate(zip(route_ids, scores, strict=False), start=1)
    ]


def _assistant_message(turn: TurnRecord, message_id: str) -> Any:
    from inspect_ai.model import ChatMessageAssistant
    from inspect_ai.tool import ToolCall

    decision = turn.decision
    if decision.kind == "tool_call" and decision.tool_name:
        args = decision.arguments if isinstance(decision.arguments, dict) else {}
        call = ToolCall(id=f"turn-{turn.turn}", function=decision.tool_name, arguments=args)
        return ChatMessageAssistant(id=message_id, content="", tool_calls=[call])
    if decision.kind == "final_answer":
        answer = json.dumps(decision.answer or {}, ensure_ascii=False)
        return ChatMessageAssistant(id=message_id, content=answer)
    return ChatMessageAssistant(id=message_id, content=f"[{decision.kind}] {decision.detail or ''}".strip())


def _tool_message(turn: TurnRecord, call: Any, message_id: str) -> Any:
    from inspect_ai.model import ChatMessageTool

    return ChatMessageTool(
        id=message_id, content=_result_text(turn), tool_call_id=call.id, function=call.function
    )


def _result_text(turn: TurnRecord) -> str:
    body = {} if turn.result is None else turn.result.model_dump(mode="json")
    return json.dumps(body, ensure_ascii=False, sort_keys=True)


def _model_event(
    turn: TurnRecord,
    input_messages: list[Any],
    assistant: Any,
    exposure: tuple[list[str], list[Any]],
    model: str,
    stamp: _Stamp,
) -> Any:
    from inspect_ai.event import ModelEvent
    from inspect_ai.model import ChatCompletionChoice, GenerateConfig, ModelOutput

    route_ids, tools = exposure
    stop: Literal["tool_calls", "stop"] = "tool_calls" if assistant.tool_calls else "stop"
    fields = stamp.fields("model")
    return ModelEvent(
        **fields,
        completed=fields["timestamp"],
        model=model,
        input=input_messages,
        tools=tools,
        tool_choice="auto",
        config=GenerateConfig(),
        output=ModelOutput(model=model, choices=[ChatCompletionChoice(message=assistant, stop_reason=stop)]),
        metadata={
            "turn": turn.turn,
            "exposed_route_ids": list(route_ids),
            "ranking_top5": turn.ranking_top5,
            "schema_tokens": turn.schema_tokens,
            "input_tokens": turn.input_tokens,
        },
    )


def _tool_event(turn: TurnRecord, call: Any, tool_message: Any, stamp: _Stamp) -> Any:
    from inspect_ai.event import ToolEvent
    from inspect_ai.tool import ToolCallError

    result = turn.result
    error = None
    if result is not None and result.status == "blocked":
        reason = (turn.audit or {}).get("reason") or result.error_class
        error = ToolCallError("permission", f"blocked by the policy gate: {reason}")
    elif result is not None and result.status == "error":
        error = ToolCallError("unknown", f"{result.error_class}")
    fields = stamp.fields("tool")
    return ToolEvent(
        **fields,
        completed=fields["timestamp"],
        id=call.id,
        function=call.function,
        arguments=call.arguments,
        result=tool_message.content,
        error=error,
        message_id=tool_message.id,
        metadata={
            "gate": turn.audit,
            "status": None if result is None else result.status,
            "route_id": None if result is None else result.route_id,
            "error_class": None if result is None else result.error_class,
        },
    )
