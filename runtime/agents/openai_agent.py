"""An OpenAI-compatible chat-completions agent (vLLM, llama.cpp, Ollama, hosted APIs).

What the model sees is what the engine counted, in both modes:

* native tools: ``messages`` as the engine built them and ``tools`` (the exposed schemas, the same
  texts the engine counts), ``tool_choice: auto`` (llama.cpp drops the tools without it) and
  ``parallel_tool_calls: false`` (the engine runs one gated call per turn);
* constrained decoding (models without native tool calls): the same prompt as plain text
  (``transcript.text_transcript``: the exposed schemas in the system message, calls and results as
  text) and a ``response_format`` JSON schema with one branch per exposed tool.

Where the server's template is known to drop parts (``server_templates``), tool results are carried as
user text and the run records a warning for the rest. Every tool call of a response is read
(``chat_response``). Sampling (``max_tokens``, ``temperature``, ``top_p``, ``seed``) is part of the
run's identity; epoch ``e`` > 1 samples with its own derived seed (:func:`epoch_seed`). Transport
(``http_client``) is not. Bad model output is a ``BadOutput`` (a gated, failed turn); a server that
does not answer after retries raises ``ModelServerError``: an infrastructure event, never an outcome.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from runtime.agents.call_cache import CallCache, open_call_cache
from runtime.agents.chat_response import parse_response
from runtime.agents.chat_shapes import ChatMessage, ChatRequest, ToolSchema
from runtime.agents.http_client import ChatClient, ModelServerError, Transport
from runtime.agents.model_cache import SerializedRequest, ServerScope, serialize_request
from runtime.agents.protocol import AgentView, Decision
from runtime.agents.registry import register_agent
from runtime.agents.server_templates import results_as_text_needed
from runtime.agents.single_flight import SingleFlight
from runtime.agents.transcript import text_transcript, tool_results_as_text
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject, JSONValue
from runtime.prompt import ANSWER_ACTION, Prompt

if TYPE_CHECKING:
    from runtime.agents.catalog_view import AgentCatalog
    from runtime.surface.model import Task

__all__ = [
    "CallRecord",
    "ModelServerError",
    "OpenAIAgent",
    "OpenAISettings",
    "build_request",
    "constrained_schema",
    "epoch_seed",
    "openai_agent_from",
    "openai_settings",
    "parse_response",
]


def epoch_seed(seed: int, epoch: int) -> int:
    """The sampling seed of ``epoch``: the spec's seed for epoch 1, a named derivation for the others
    (first 31 bits of sha256("schemarouter/epoch-seed/{seed}/{epoch}"))."""
    if epoch == 1:
        return seed
    digest = hashlib.sha256(f"schemarouter/epoch-seed/{seed}/{epoch}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class OpenAISettings:
    base_url: str
    model: str
    api_key: str | None = None
    temperature: float = 0.0
    top_p: float | None = None  # None: not sent (the server's default)
    seed: int = 0
    max_tokens: int = 256
    timeout_s: float = 120.0
    retries: int = 3
    backoff_s: float = 1.0
    constrained_decoding: bool = False
    tool_results_as_text: bool = False
    server_template: str | None = None
    epoch: int = 1
    # Names the server in the cache instead of the base URL (a server on a new port each time, such as
    # the smoke's, is still the same server); None: the base URL.
    server_id: str | None = None

    @property
    def transport(self) -> Transport:
        return Transport(timeout_s=self.timeout_s, retries=self.retries, backoff_s=self.backoff_s)

    @property
    def scope(self) -> ServerScope:
        return ServerScope(base_url=self.server_id or self.base_url, model=self.model, epoch=self.epoch)


@dataclass
class CallRecord:
    """What the agent records of each model call, beside our own token counts."""

    cached: bool
    server_calls: int
    # As the server reported them (a server may send anything there; the trace keeps what it sent).
    usage: JSONValue
    model: JSONValue
    system_fingerprint: JSONValue
    finish_reason: JSONValue = None
    tool_calls: int = 0


def build_request(settings: OpenAISettings, view: AgentView) -> ChatRequest:
    request: ChatRequest = {
        "model": settings.model,
        "temperature": settings.temperature,
        "seed": epoch_seed(settings.seed, settings.epoch),
        "max_tokens": settings.max_tokens,
    }
    if settings.top_p is not None:
        request["top_p"] = settings.top_p
    prompt = view.prompt
    messages, tools = _chat_shapes(prompt)
    if settings.constrained_decoding:
        request["messages"] = text_transcript(messages, prompt.tool_texts)
        request["response_format"] = {"type": "json_object", "schema": constrained_schema(tools)}
        return request
    as_text = settings.tool_results_as_text or results_as_text_needed(
        settings.server_template, constrained=False
    )
    request["messages"] = tool_results_as_text(messages) if as_text else list(messages)
    if tools:
        request["tools"] = list(tools)
        # llama.cpp's server silently drops the tools unless tool_choice is given.
        request["tool_choice"] = "auto"
        request["parallel_tool_calls"] = False
    return request


def _chat_shapes(prompt: Prompt) -> tuple[Sequence[ChatMessage], Sequence[ToolSchema]]:
    """The prompt's messages and tools as the chat shapes they are: ``runtime/prompt.py`` renders them
    so (``build_prompt``, ``HistoryEntry.messages``, ``Endpoint.tool_schema``), typed as plain dicts."""
    return cast("Sequence[ChatMessage]", prompt.messages), cast("Sequence[ToolSchema]", prompt.tools)


def constrained_schema(tools: Sequence[ToolSchema]) -> JSONObject:
    """One branch per exposed tool: its name as a constant and its own parameter schema, plus a final
    answer. The name's key is ``action`` because llama.cpp builds the grammar in the order of the
    schema's keys, which the canonical request sorts: ``action`` before ``arguments`` makes the model
    name the tool first (with ``tool`` it wrote ``{}`` arguments first, which only the final answer
    accepts, and ended 18 of 20 smoke episodes at once). A loose ``arguments: object`` lets small
    models ramble until max_tokens (seen with llama.cpp); per-tool branches keep the output to a call
    the gate can judge."""
    branches: list[JSONValue] = [
        {
            "type": "object",
            "properties": {
                "action": {"type": "string", "const": t["function"]["name"]},
                "arguments": t["function"]["parameters"],
            },
            "required": ["action", "arguments"],
        }
        for t in tools
        if t["function"]["name"] != ANSWER_ACTION  # the answer's own branch follows
    ]
    branches.append(
        {
            "type": "object",
            "properties": {
                "action": {"type": "string", "const": "final_answer"},
                "arguments": {"type": "object"},
            },
            "required": ["action", "arguments"],
        }
    )
    return {"anyOf": branches}


@dataclass
class ModelLink:
    """What the episodes of one process share with a server: the HTTP client (its connection pool),
    the call cache, the server's last fingerprint and the single-flight map. Episodes in flight on
    several threads each have their own agent (and their own call records) over one link."""

    client: ChatClient
    cache: CallCache | None
    use_cache: bool = True
    live_fingerprint: str | None = None  # the last system_fingerprint the live server returned
    flights: SingleFlight = field(default_factory=SingleFlight)

    def answer(self, scope: ServerScope, serialized: SerializedRequest) -> tuple[JSONObject, bool, int]:
        """The response, whether it came from the cache, and the HTTP attempts made for it."""
        cache = self.cache if self.use_cache else None
        if cache is None:
            response, attempts = self.client.post_counted(serialized.body)
            self._saw(response)
            return response, False, attempts
        with self.flights.leader(scope.key(serialized)):
            hit = cache.get(scope, serialized, live_fingerprint=self.live_fingerprint)
            if hit is not None:
                return hit, True, 0
            answered, attempts = self.client.post_counted(serialized.body)
            self._saw(answered)
            cache.put(scope, serialized, answered)
            return answered, False, attempts

    def _saw(self, response: JSONObject) -> None:
        fingerprint = response.get("system_fingerprint")
        if isinstance(fingerprint, str):
            self.live_fingerprint = fingerprint


@dataclass
class OpenAIAgent:
    settings: OpenAISettings
    cache: CallCache | None = None
    use_cache: bool = True  # False: the cache is neither read nor written
    records: list[CallRecord] = field(default_factory=list)
    name: str = "openai"
    client: ChatClient | None = None
    link: ModelLink | None = None  # shared by the episodes of a process; built from the above if None

    def __post_init__(self) -> None:
        if self.link is None:
            client = self.client or ChatClient(
                base_url=self.settings.base_url,
                transport=self.settings.transport,
                api_key=self.settings.api_key,
            )
            self.link = ModelLink(client=client, cache=self.cache, use_cache=self.use_cache)
        self.client = self.link.client

    @property
    def live_fingerprint(self) -> str | None:
        assert self.link is not None
        return self.link.live_fingerprint

    @live_fingerprint.setter
    def live_fingerprint(self, value: str | None) -> None:
        assert self.link is not None
        self.link.live_fingerprint = value

    @property
    def server_calls(self) -> int:
        assert self.link is not None
        return self.link.client.calls

    def decide(self, view: AgentView) -> Decision:
        assert self.link is not None
        request = build_request(self.settings, view)
        # One serialization per call: the cache key, the stored text and the body all come from it.
        serialized = serialize_request(request, view.prompt.tool_texts if "tools" in request else None)
        response, cached, attempts = self.link.answer(self.settings.scope, serialized)
        choice = _first_choice(response)
        message = choice.get("message")
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        self.records.append(
            CallRecord(
                cached=cached,
                server_calls=attempts,
                usage=response.get("usage"),
                model=response.get("model"),
                system_fingerprint=response.get("system_fingerprint"),
                finish_reason=choice.get("finish_reason"),
                tool_calls=len(calls) if isinstance(calls, list) else 0,
            )
        )
        names = {t["function"]["name"] for t in view.prompt.tools}
        return parse_response(response, names, constrained=self.settings.constrained_decoding)


def _first_choice(response: JSONObject) -> JSONObject:
    choices = response.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    return {}


def openai_agent_from(spec: Mapping[str, JSONValue], options: Mapping[str, JSONValue]) -> OpenAIAgent:
    """Settings from spec/agent.yaml ``openai``, overridden by run options (CLI flags).

    Options: ``base_url``, ``model``, ``constrained_decoding``, ``max_tokens``, ``temperature``,
    ``top_p``, ``seed``, ``tool_results_as_text``, ``server_template``, ``epoch``, ``server_id`` (the
    server's name in the cache; default the base URL), ``retries`` and ``backoff_s`` (transport),
    ``cache_path``
    (SQLite file; omitted means no cache), ``no_cache`` (neither read nor write the cache).
    """
    merged = _merged(spec, options)
    cache_path = _text(merged, "cache_path")
    no_cache = bool(merged.get("no_cache", False))
    # --no-cache opens no cache at all, so not even an empty cache file is written.
    cache = open_call_cache(Path(cache_path)) if cache_path and not no_cache else None
    settings = openai_settings(spec, options)
    return OpenAIAgent(settings=settings, cache=cache, use_cache=not no_cache)


def _merged(spec: Mapping[str, JSONValue], options: Mapping[str, JSONValue]) -> JSONObject:
    return {**spec, **{k: v for k, v in options.items() if v is not None}}


def _text(merged: JSONObject, key: str) -> str | None:
    """An optional text setting; anything but text is one line naming it."""
    value = merged.get(key)
    if value is None or isinstance(value, str):
        return value
    raise SchemaRouterError(f"openai agent: {key} must be text, not {value!r}")


def _number(merged: JSONObject, key: str) -> int | float | str:
    """A setting that float() or int() reads (a number, or its text); anything else is one line naming it."""
    value = merged[key]
    if isinstance(value, int | float | str):
        return value
    raise SchemaRouterError(f"openai agent: {key} must be a number, not {value!r}")


def openai_settings(spec: Mapping[str, JSONValue], options: Mapping[str, JSONValue]) -> OpenAISettings:
    """The settings of spec/agent.yaml ``openai`` overridden by the run's options (a setting of the wrong
    kind is one line naming it)."""
    merged = _merged(spec, options)
    if merged.get("parallel_tool_calls", False):
        raise SchemaRouterError(
            "openai agent: parallel_tool_calls true is not supported: the engine gates one call per "
            "turn; leave it false (a response with several calls is then a recorded, failed turn)"
        )
    api_key_env = _text(merged, "api_key_env")
    return OpenAISettings(
        base_url=str(merged["base_url"]),
        model=str(merged["model"]),
        api_key=os.environ.get(api_key_env) if api_key_env else None,
        temperature=float(_number(merged, "temperature")),
        top_p=None if merged.get("top_p") is None else float(_number(merged, "top_p")),
        seed=int(_number(merged, "seed")),
        max_tokens=int(_number(merged, "max_tokens")),
        timeout_s=float(_number(merged, "timeout_s")),
        retries=int(_number(merged, "retries")),
        backoff_s=float(_number(merged, "backoff_s")),
        constrained_decoding=bool(merged["constrained_decoding"]),
        tool_results_as_text=bool(merged.get("tool_results_as_text", False)),
        server_template=_text(merged, "server_template"),
        epoch=int(_number(merged, "epoch")) if "epoch" in merged else 1,
        server_id=_text(merged, "server_id"),
    )


_LINKS: dict[tuple[tuple[str, JSONValue], ...], ModelLink] = {}
_LINKS_LOCK = threading.Lock()
# A forked worker opens its own connections and cache handle: sharing the parent's sockets would let two
# processes read each other's responses (the parent may have called the server in an earlier run).
os.register_at_fork(after_in_child=_LINKS.clear)


@register_agent("openai")
def _openai(
    *,
    task: Task,
    catalog: AgentCatalog,
    settings: Mapping[str, JSONValue],
    options: dict[str, JSONValue],
) -> OpenAIAgent:
    """A fresh agent per episode (its own call records, so episodes on several threads never read each
    other's) over one link per process, settings and epoch: one client, one cache, counters for the
    whole run."""
    key = tuple(sorted(options.items()))
    with _LINKS_LOCK:
        link = _LINKS.get(key)
        if link is None:
            first = openai_agent_from(dict(settings), options)
            assert first.link is not None
            link = _LINKS[key] = first.link
            return first
    return OpenAIAgent(
        settings=openai_settings(dict(settings), options),
        cache=link.cache,
        use_cache=link.use_cache,
        link=link,
    )
