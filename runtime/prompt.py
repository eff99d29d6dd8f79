"""The prompt a model sees in one turn, in the OpenAI chat-completions shape.

There is one prompt builder: the engine counts tokens on this object and a model agent sends exactly
this object (``messages`` and ``tools``). Tool results enter the history as the model view of the
typed result plus its free-text ``message``: the model may read free text, the retriever never does.

Rendering is done once: :class:`ToolSchemas` renders each endpoint's schema once per catalog (keyed by
route ID, the catalog named by its digest) and keeps each exposed set's tools and texts as an
:class:`ExposedTools`, so a turn costs O(exposed tools) and nothing per catalog. Each history entry
renders its two messages once, when first needed. The rendered dicts are shared between turns and
must be treated as read-only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from runtime.catalog.model import Endpoint
from runtime.core.json_value import JSONObject
from runtime.simulator.result import ToolResult


def _dumps(value: Any) -> str:
    return _ENCODER.encode(value)


# json.dumps with these options, built once (json.dumps builds an encoder per call for any option).
_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


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

    @cached_property
    def messages(self) -> tuple[JSONObject, JSONObject]:
        """The assistant call and the tool result, rendered once for every later turn's prompt."""
        call_id = self.call_id()
        return (
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": call_id, "type": "function", "function": self._function}],
            },
            {"role": "tool", "tool_call_id": call_id, "content": self._result_text},
        )

    @cached_property
    def token_parts(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """(role, content text) of the two messages, as :meth:`Prompt.token_parts` charges them."""
        return (("assistant", _dumps([self._function])), ("tool", self._result_text))

    @cached_property
    def _function(self) -> JSONObject:
        """The call's ``function`` (its name and JSON arguments), shared by the message and its tokens."""
        return {"name": self.tool_name, "arguments": _dumps(self.arguments)}

    @cached_property
    def _result_text(self) -> str:
        """The tool message's content: the model view as compact, key-sorted JSON."""
        return _dumps(self.model_view)


@dataclass(frozen=True, eq=False)
class ExposedTools:
    """One exposed set rendered: the endpoints in order, their schemas and the exact texts counted."""

    route_ids: tuple[str, ...]
    endpoints: tuple[Endpoint, ...]
    tools: tuple[dict[str, Any], ...]
    tool_texts: tuple[str, ...]

    @cached_property
    def names(self) -> frozenset[str]:
        return frozenset(e.name for e in self.endpoints)

    @cached_property
    def by_route(self) -> Mapping[str, Endpoint]:
        return {e.route_id: e for e in self.endpoints}

    @classmethod
    def render(cls, endpoints: Sequence[Endpoint]) -> ExposedTools:
        """Render without a cache (one-off prompts, tests)."""
        eps = tuple(endpoints)
        tools = tuple(e.tool_schema() for e in eps)
        return cls(
            route_ids=tuple(e.route_id for e in eps),
            endpoints=eps,
            tools=tools,
            tool_texts=tuple(_dumps(t) for t in tools),
        )


class ToolSchemas:
    """Each endpoint's schema rendered once per catalog, and each exposed set assembled once.

    ``digest`` names the catalog the schemas belong to; a cache entry is keyed by route ID within it.
    The set cache is bounded (``max_sets``); past the bound, sets are assembled from the per-route cache
    without being kept, which still renders nothing twice.
    """

    def __init__(self, by_route: Mapping[str, Endpoint], digest: str, *, max_sets: int = 50_000):
        self.digest = digest
        self._by_route = by_route
        self._rendered: dict[str, tuple[JSONObject, str]] = {}
        self._sets: dict[tuple[str, ...], ExposedTools] = {}
        self._max_sets = max_sets

    def rendered(self, route_id: str) -> tuple[JSONObject, str]:
        """(schema, compact key-sorted JSON) of one route, rendered on first use."""
        hit = self._rendered.get(route_id)
        if hit is None:
            schema = self._by_route[route_id].tool_schema()
            hit = self._rendered[route_id] = (schema, _dumps(schema))
        return hit

    def exposed(self, route_ids: Sequence[str]) -> ExposedTools:
        key = route_ids if isinstance(route_ids, tuple) else tuple(route_ids)
        hit = self._sets.get(key)
        if hit is not None:
            return hit
        by_route, rendered = self._by_route, self._rendered
        parts = [rendered.get(r) or self.rendered(r) for r in key]
        hit = ExposedTools(
            route_ids=key,
            endpoints=tuple(by_route[r] for r in key),
            tools=tuple(p[0] for p in parts),
            tool_texts=tuple(p[1] for p in parts),
        )
        if len(self._sets) < self._max_sets:
            self._sets[key] = hit
        return hit


@dataclass(frozen=True)
class Prompt:
    """Messages and tools for one model turn."""

    messages: tuple[dict[str, Any], ...]
    tools: tuple[dict[str, Any], ...]
    tool_texts: tuple[str, ...]
    # The entries behind the history messages, when built by build_prompt: their parts are rendered once.
    history: tuple[HistoryEntry, ...] | None = None

    def token_parts(self) -> list[tuple[str, str]]:
        """(role, content text) pairs that the token counter charges."""
        if self.history is not None and len(self.messages) == 2 + 2 * len(self.history):
            parts = [(m["role"], m.get("content") or "") for m in self.messages[:2]]
            for h in self.history:
                parts.extend(h.token_parts)
            return parts
        parts = []
        for m in self.messages:
            if m.get("tool_calls"):
                content = _dumps([c["function"] for c in m["tool_calls"]])
            else:
                content = m.get("content") or ""
            parts.append((m["role"], content))
        return parts


# The answer action, named in the prompt when agent.yaml says ``answer_action: named`` (issue #29): one
# sentence at the end of the system message and one more tool after the exposed ones, the same for every
# model and in every mode (native tools: the ``tools`` field; constrained decoding: the tools block of
# the system message). Both are counted in the prompt's tokens, the tool in its schema tokens. With
# ``unnamed`` (absent: 0.14's and 0.16's frozen prompts) neither is there.
ANSWER_ACTION = "final_answer"
ANSWER_SENTENCE = (
    "When the request is done, call final_answer with the values the user asked for as its arguments."
)
ANSWER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": ANSWER_ACTION,
        "description": "End the task: give the answer to the user's request.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": True},
    },
}
ANSWER_TOOL_TEXT = _dumps(ANSWER_TOOL)


def build_prompt(
    *,
    system_prompt: str,
    query: str,
    history: tuple[HistoryEntry, ...],
    exposed: ExposedTools | Sequence[Endpoint],
    answer_action: bool = False,
) -> Prompt:
    """The prompt of one turn. ``exposed`` is a rendered set (:class:`ToolSchemas`) or plain endpoints;
    ``answer_action``: name the answer action (``ANSWER_SENTENCE``, ``ANSWER_TOOL``)."""
    tools = exposed if isinstance(exposed, ExposedTools) else ExposedTools.render(exposed)
    system = f"{system_prompt}\n\n{ANSWER_SENTENCE}" if answer_action else system_prompt
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": query},
    ]
    for h in history:
        messages.extend(h.messages)
    schemas, texts = tools.tools, tools.tool_texts
    if answer_action:
        schemas, texts = (*schemas, ANSWER_TOOL), (*texts, ANSWER_TOOL_TEXT)
    return Prompt(messages=tuple(messages), tools=schemas, tool_texts=texts, history=history)
