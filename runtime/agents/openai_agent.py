"""An OpenAI-compatible chat-completions agent (vLLM, llama.cpp, Ollama, hosted APIs).

It sends exactly the prompt the engine built and counted: ``messages`` and ``tools`` (the exposed
schemas). Bad model output (no parsable call, unknown tool, arguments that are not JSON) becomes a
``BadOutput`` decision, which the engine turns into a gated, failed turn, never a crash. A server that
does not answer after the configured retries raises ``ModelServerError``: an infrastructure event,
never a task outcome.

With ``constrained_decoding`` the request also carries a ``response_format`` JSON schema whose tool
name is an enum of the exposed tools (llama.cpp supports this), for models without native tool calls.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schemarouter.runtime.agents.call_cache import CallCache, open_call_cache
from schemarouter.runtime.agents.model_cache import SerializedRequest, serialize_request
from schemarouter.runtime.agents.protocol import AgentView, BadOutput, Decision, FinalAnswer, ToolCall
from schemarouter.runtime.agents.registry import register_agent

if TYPE_CHECKING:
    from schemarouter.runtime.agents.catalog_view import AgentCatalog
    from schemarouter.runtime.surface.model import Task


class ModelServerError(RuntimeError):
    """The model server did not answer usefully after retries (an infrastructure event)."""


@dataclass(frozen=True)
class OpenAISettings:
    base_url: str
    model: str
    api_key: str | None = None
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 256
    timeout_s: float = 120.0
    retries: int = 3
    backoff_s: float = 1.0
    constrained_decoding: bool = False


@dataclass
class CallRecord:
    """What the agent records of each model call, beside our own token counts."""

    cached: bool
    server_calls: int
    usage: dict[str, Any] | None
    model: str | None
    system_fingerprint: str | None


def build_request(settings: OpenAISettings, view: AgentView) -> dict[str, Any]:
    request: dict[str, Any] = {
        "model": settings.model,
        "messages": list(view.prompt.messages),
        "temperature": settings.temperature,
        "seed": settings.seed,
        "max_tokens": settings.max_tokens,
    }
    if settings.constrained_decoding:
        request["response_format"] = {"type": "json_object", "schema": constrained_schema(view.prompt.tools)}
    elif view.prompt.tools:
        request["tools"] = list(view.prompt.tools)
        # llama.cpp's server silently drops the tools unless tool_choice is given.
        request["tool_choice"] = "auto"
    return request


def constrained_schema(tools: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> dict[str, Any]:
    """One branch per exposed tool: its name as a constant and its own parameter schema, plus a final
    answer. A loose ``arguments: object`` lets small models ramble until max_tokens (seen with
    llama.cpp); per-tool branches keep the output to a call the gate can judge."""
    branches: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {
                "tool": {"type": "string", "const": t["function"]["name"]},
                "arguments": t["function"]["parameters"],
            },
            "required": ["tool", "arguments"],
        }
        for t in tools
    ]
    branches.append(
        {
            "type": "object",
            "properties": {
                "tool": {"type": "string", "const": "final_answer"},
                "arguments": {"type": "object"},
            },
            "required": ["tool", "arguments"],
        }
    )
    return {"anyOf": branches}


def parse_response(response: dict[str, Any], exposed_names: set[str], constrained: bool = False) -> Decision:
    """Turn a chat-completions response into a decision; never raises on model output."""
    try:
        message = response["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        return BadOutput(error="response has no choices[0].message", raw=json.dumps(response)[:2000])
    tool_calls = message.get("tool_calls") or []
    content = message.get("content") or ""
    if constrained and not tool_calls:
        return _parse_constrained(content)
    if not tool_calls:
        if not content.strip():
            return BadOutput(error="empty response: no tool call and no text")
        return FinalAnswer(text=content)
    call = tool_calls[0]
    function = call.get("function") or {}
    name = function.get("name")
    raw_args = function.get("arguments")
    if not isinstance(name, str) or not name:
        return BadOutput(error="tool call without a name", raw=json.dumps(call)[:2000])
    if raw_args is None:
        return BadOutput(error="tool call without arguments", raw=json.dumps(call)[:2000], tool_name=name)
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
    if not isinstance(data, dict) or not isinstance(data.get("tool"), str):
        return BadOutput(error="constrained output lacks a tool name", raw=content[:2000])
    if data["tool"] == "final_answer":
        return FinalAnswer(text=json.dumps(data.get("arguments", {}), ensure_ascii=False))
    args = data.get("arguments", {})
    if not isinstance(args, dict):
        return BadOutput(error="arguments are not a JSON object", raw=content[:2000], tool_name=data["tool"])
    return ToolCall(data["tool"], args)


@dataclass
class OpenAIAgent:
    settings: OpenAISettings
    cache: CallCache | None = None
    use_cache: bool = True  # False: the cache is neither read nor written
    records: list[CallRecord] = field(default_factory=list)
    server_calls: int = 0
    name: str = "openai"

    def decide(self, view: AgentView) -> Decision:
        request = build_request(self.settings, view)
        # One serialization per call: the cache key, the stored text and the body all come from it.
        serialized = serialize_request(request, view.prompt.tool_texts if "tools" in request else None)
        calls_before = self.server_calls
        cache = self.cache if self.use_cache else None
        response = cache.get(serialized) if cache is not None else None
        cached = response is not None
        if response is None:
            response = self._post(serialized)
            if cache is not None:
                cache.put(serialized, response)
        self.records.append(
            CallRecord(
                cached=cached,
                server_calls=self.server_calls - calls_before,
                usage=response.get("usage"),
                model=response.get("model"),
                system_fingerprint=response.get("system_fingerprint"),
            )
        )
        names = {t["function"]["name"] for t in view.prompt.tools}
        return parse_response(response, names, constrained=self.settings.constrained_decoding)

    def _post(self, request: SerializedRequest) -> dict[str, Any]:
        url = self.settings.base_url.rstrip("/") + "/chat/completions"
        body = request.body
        headers = {"Content-Type": "application/json"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        last_error = "no attempt"
        for attempt in range(self.settings.retries + 1):
            if attempt:
                time.sleep(self.settings.backoff_s * 2 ** (attempt - 1))
            self.server_calls += 1
            try:
                req = urllib.request.Request(url, data=body, headers=headers, method="POST")
                with urllib.request.urlopen(req, timeout=self.settings.timeout_s) as resp:
                    data = json.loads(resp.read().decode("utf-8"))
                if isinstance(data, dict):
                    return data
                last_error = "response is not a JSON object"
            except urllib.error.HTTPError as err:
                last_error = f"HTTP {err.code}"
                if err.code != 429 and err.code < 500:
                    break
            except (urllib.error.URLError, TimeoutError, OSError, json.JSONDecodeError) as err:
                last_error = f"{type(err).__name__}: {err}"
        raise ModelServerError(f"model server at {url} failed: {last_error}")


def openai_agent_from(spec: dict[str, Any], options: dict[str, Any]) -> OpenAIAgent:
    """Settings from spec/agent.yaml ``openai``, overridden by run options (CLI flags).

    Options: ``base_url``, ``model``, ``constrained_decoding``, ``cache_path`` (SQLite file; omitted
    means no cache), ``no_cache`` (neither read nor write the cache: nothing is recorded).
    """
    merged = {**spec, **{k: v for k, v in options.items() if v is not None}}
    api_key_env = merged.get("api_key_env") or ""
    settings = OpenAISettings(
        base_url=str(merged["base_url"]),
        model=str(merged["model"]),
        api_key=os.environ.get(api_key_env) if api_key_env else None,
        temperature=float(merged["temperature"]),
        seed=int(merged["seed"]),
        max_tokens=int(merged["max_tokens"]),
        timeout_s=float(merged["timeout_s"]),
        retries=int(merged["retries"]),
        backoff_s=float(merged["backoff_s"]),
        constrained_decoding=bool(merged["constrained_decoding"]),
    )
    cache_path = merged.get("cache_path")
    no_cache = bool(merged.get("no_cache", False))
    # --no-cache opens no cache at all, so not even an empty cache file is written.
    cache = open_call_cache(Path(cache_path)) if cache_path and not no_cache else None
    return OpenAIAgent(settings=settings, cache=cache, use_cache=not no_cache)


_OPENAI_AGENTS: dict[tuple[tuple[str, Any], ...], OpenAIAgent] = {}


@register_agent("openai")
def _openai(
    *, task: Task, catalog: AgentCatalog, settings: Mapping[str, Any], options: dict[str, Any]
) -> OpenAIAgent:
    """One client per process and settings, so its call cache and counters span the whole run."""
    key = tuple(sorted(options.items()))
    agent = _OPENAI_AGENTS.get(key)
    if agent is None:
        agent = _OPENAI_AGENTS[key] = openai_agent_from(dict(settings), options)
    return agent
