"""The OpenAI-compatible chat-completions shapes a model agent builds and reads by fixed keys.

The engine's prompt (``runtime/prompt.py``: ``build_prompt``, ``HistoryEntry.messages``,
``Endpoint.tool_schema``) renders messages and tools in exactly these shapes; the agent sends them
(``openai_agent.build_request``) or renders them as text (``transcript``). What a server answers is not
one of these: it is arbitrary JSON (``runtime.core.json_value.JSONObject``), read defensively by
``chat_response``.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from runtime.core.json_value import JSONObject, JSONValue


class FunctionCall(TypedDict):
    """The function of a tool call: its name and its arguments (JSON text as OpenAI sends them)."""

    name: str
    arguments: JSONValue


class ToolCallJSON(TypedDict):
    """One tool call of an assistant message."""

    id: str
    type: Literal["function"]
    function: FunctionCall


class ChatMessage(TypedDict):
    """One message: its role (system, user, assistant, tool) and text; an assistant's calls; the call a
    tool result answers."""

    role: str
    content: NotRequired[str | None]
    tool_calls: NotRequired[list[ToolCallJSON]]
    tool_call_id: NotRequired[str]


class FunctionSchema(TypedDict):
    """A tool's function: name, description and the JSON schema of its parameters."""

    name: str
    description: NotRequired[str]
    parameters: JSONObject


class ToolSchema(TypedDict):
    """One exposed tool as a chat-completions ``tools`` entry."""

    type: Literal["function"]
    function: FunctionSchema


class ResponseFormat(TypedDict):
    """Constrained decoding: a JSON object that fits ``schema`` (``openai_agent.constrained_schema``)."""

    type: Literal["json_object"]
    schema: JSONObject


class ChatRequest(TypedDict):
    """A chat-completions request body as the agent builds it (the cache stores its canonical text)."""

    model: str
    temperature: float
    seed: int
    max_tokens: int
    top_p: NotRequired[float]
    messages: NotRequired[list[ChatMessage]]
    response_format: NotRequired[ResponseFormat]
    tools: NotRequired[list[ToolSchema]]
    tool_choice: NotRequired[Literal["auto"]]
    parallel_tool_calls: NotRequired[bool]
