"""The OpenAI-compatible agent against responses recorded from a real llama.cpp server.

Fixtures in tests/fixtures/llm/ were recorded from llama-cpp-python's server with Gemma 3 270M
(see its README). A loopback HTTP server replays them, so the whole HTTP path runs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest
from llm_loopback import send_json, serving

from runtime.agents.model_cache import ModelCallCache, request_key, serialize_request
from runtime.agents.openai_agent import (
    ModelServerError,
    OpenAIAgent,
    OpenAISettings,
    build_request,
    openai_agent_from,
    parse_response,
)
from runtime.agents.protocol import AgentView, BadOutput, FinalAnswer, ToolCall
from runtime.catalog.model import Endpoint, FieldSpec
from runtime.prompt import HistoryEntry, build_prompt

FIXTURES = Path(__file__).parent / "fixtures" / "llm"
NAMES = {"geo_geocode", "weather_forecast_daily"}


def recorded(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.response.json").read_text())


def test_tool_call_is_parsed_from_a_recorded_response() -> None:
    decision = parse_response(recorded("en_weather_tools_auto"), NAMES)
    assert isinstance(decision, ToolCall)
    assert decision.tool_name == "geo_geocode"
    assert decision.arguments == {"place": "Paris, France"}


def test_truncated_arguments_are_a_bad_output_not_an_exception() -> None:
    decision = parse_response(recorded("en_weather_tools_forced_max_tokens_truncated_arguments"), NAMES)
    assert isinstance(decision, BadOutput)
    assert decision.error == "arguments are not JSON"
    assert decision.tool_name == "weather_forecast_daily"


def test_empty_completion_is_a_bad_output() -> None:
    decision = parse_response(recorded("ko_weather_tools_auto"), NAMES)
    assert isinstance(decision, BadOutput) and "empty" in decision.error


def test_text_without_a_call_is_a_final_answer() -> None:
    decision = parse_response(recorded("en_weather_tools_no_tool_choice"), NAMES)
    assert isinstance(decision, FinalAnswer) and "Eiffel" in decision.text


def test_constrained_output_is_parsed() -> None:
    decision = parse_response(
        recorded("en_router_response_format_per_tool_anyof_schema"), NAMES, constrained=True
    )
    assert decision == ToolCall("geo_geocode", {"place": "Paris, France"})


def test_error_body_is_a_bad_output() -> None:
    decision = parse_response(recorded("error_followup_assistant_content_omitted_http500"), NAMES)
    assert isinstance(decision, BadOutput) and "choices" in decision.error


@pytest.mark.parametrize(
    "message",
    [
        {"tool_calls": [{"function": {"arguments": "{}"}}]},
        {"tool_calls": [{"function": {"name": "geo_geocode", "arguments": "[1, 2]"}}]},
        {"tool_calls": [{"function": {"name": "geo_geocode", "arguments": None}}]},
    ],
)
def test_malformed_calls_never_raise(message: dict[str, Any]) -> None:
    assert isinstance(parse_response({"choices": [{"message": message}]}, NAMES), BadOutput)


def _view(query: str = "weather in Paris") -> AgentView:
    endpoint = Endpoint(
        route_id="geo.geocode.v1",
        name="geo_geocode",
        domain="geo",
        summary="Look up coordinates of a place (Zürich, 東京).",
        description="",
        summaries={"en": "Look up coordinates."},
        inputs=(
            FieldSpec(name="place", json_type="string", semantic_id="geo.place_name", description="Place"),
        ),
        outputs=(),
        side_effect="read",
        errors=(),
    )
    history = (
        HistoryEntry(
            turn=1,
            tool_name="geo_geocode",
            route_id="geo.geocode.v1",
            arguments={"place": "Paris"},
            status="ok",
            error_class=None,
            model_view={"status": "ok", "latitude": 48.85},
            result=None,
        ),
    )
    prompt = build_prompt(system_prompt="sys", query=query, history=history, exposed=(endpoint,))
    return AgentView(turn=2, prompt=prompt, exposed=(endpoint,), history=history)


def test_request_is_exactly_the_engine_prompt() -> None:
    view = _view()
    request = build_request(OpenAISettings(base_url="http://x/v1", model="m"), view)
    assert request["messages"] == list(view.prompt.messages)
    assert request["tools"] == list(view.prompt.tools)
    assert request["tool_choice"] == "auto"  # llama.cpp drops tools without it
    assistant = request["messages"][2]
    assert assistant["content"] == ""  # llama.cpp answers HTTP 500 to content null
    assert request["temperature"] == 0 and request["seed"] == 0


class _Replay(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True  # headers and body are two writes (tests/llm_loopback.py)
    responses: ClassVar[list[tuple[int, dict[str, Any]]]] = []
    received: ClassVar[list[dict[str, Any]]] = []
    raw: ClassVar[list[bytes]] = []

    def do_POST(self) -> None:
        data = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).raw.append(data)
        body = json.loads(data)
        type(self).received.append(body)
        status, payload = type(self).responses.pop(0) if type(self).responses else (500, {"error": "empty"})
        send_json(self, status, payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Replay.responses = []
    _Replay.received = []
    with serving(_Replay) as base_url:
        yield base_url


def test_cache_replays_without_calling_the_server(server: str, tmp_path: Path) -> None:
    _Replay.responses = [(200, recorded("en_weather_tools_auto"))]
    settings = OpenAISettings(base_url=server, model="m", retries=0)
    first = OpenAIAgent(settings=settings, cache=ModelCallCache(tmp_path / "cache.sqlite"))
    assert isinstance(first.decide(_view()), ToolCall)
    assert first.server_calls == 1 and first.records[0].usage is not None

    second = OpenAIAgent(settings=settings, cache=ModelCallCache(tmp_path / "cache.sqlite"))
    assert second.decide(_view()) == first.decide(_view())
    assert second.server_calls == 0 and second.cache is not None and second.cache.hits == 1
    assert len(_Replay.received) == 1


def test_no_cache_bypasses_reads_and_writes_nothing(server: str, tmp_path: Path) -> None:
    _Replay.responses = [(200, recorded("en_weather_tools_auto"))] * 3
    settings = OpenAISettings(base_url=server, model="m", retries=0)
    cache = ModelCallCache(tmp_path / "cache.sqlite")
    OpenAIAgent(settings=settings, cache=cache).decide(_view())
    agent = OpenAIAgent(settings=settings, cache=cache, use_cache=False)
    agent.decide(_view())
    assert agent.server_calls == 1
    other = _view(query="another question")
    agent.decide(other)
    assert agent.server_calls == 2
    assert cache._db.execute("SELECT COUNT(*) FROM model_calls").fetchone() == (1,)  # the first agent's


def test_no_cache_option_opens_no_cache_file(tmp_path: Path) -> None:
    spec = {
        "base_url": "http://127.0.0.1:9/v1",
        "model": "m",
        "temperature": 0,
        "seed": 0,
        "max_tokens": 8,
        "timeout_s": 1,
        "retries": 0,
        "backoff_s": 0,
        "constrained_decoding": False,
    }
    path = tmp_path / "calls.sqlite"
    agent = openai_agent_from(spec, {"cache_path": str(path), "no_cache": True})
    assert agent.cache is None and not path.exists()
    # With a cache, the file is made by the first stored answer, not by opening: nothing answered, no file.
    assert openai_agent_from(spec, {"cache_path": str(path)}).cache is not None and not path.exists()


@pytest.mark.parametrize("constrained", [False, True])
def test_a_request_is_serialized_once_into_the_canonical_text(constrained: bool) -> None:
    view = _view()
    request = build_request(
        OpenAISettings(base_url="http://x/v1", model="m", constrained_decoding=constrained), view
    )
    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    spliced = serialize_request(request, view.prompt.tool_texts if "tools" in request else None)
    assert spliced.text == canonical and spliced.body == canonical.encode("utf-8")
    assert spliced.key == hashlib.sha256(canonical.encode("utf-8")).hexdigest() == request_key(request)
    assert serialize_request(request) == spliced
    assert json.loads(spliced.body) == request


def test_the_body_sent_is_the_cached_text(server: str, tmp_path: Path) -> None:
    _Replay.responses = [(200, recorded("en_weather_tools_auto"))]
    cache = ModelCallCache(tmp_path / "cache.sqlite")
    agent = OpenAIAgent(settings=OpenAISettings(base_url=server, model="m", retries=0), cache=cache)
    agent.decide(_view())
    (stored,) = cache._db.execute("SELECT request FROM model_calls").fetchone()
    assert _Replay.raw[-1] == stored.encode("utf-8")
    assert json.loads(stored) == build_request(agent.settings, _view())


def test_server_errors_retry_then_raise_an_infrastructure_error(server: str) -> None:
    error = recorded("error_followup_assistant_content_omitted_http500")
    _Replay.responses = [(500, error), (500, error), (200, recorded("en_weather_tools_auto"))]
    agent = OpenAIAgent(settings=OpenAISettings(base_url=server, model="m", retries=2, backoff_s=0.0))
    assert isinstance(agent.decide(_view()), ToolCall) and agent.server_calls == 3

    _Replay.responses = [(500, error)] * 3
    failing = OpenAIAgent(settings=OpenAISettings(base_url=server, model="m", retries=2, backoff_s=0.0))
    with pytest.raises(ModelServerError, match="HTTP 500"):
        failing.decide(_view())


def test_client_errors_are_not_retried(server: str) -> None:
    _Replay.responses = [(400, {"error": "bad"})] * 3
    agent = OpenAIAgent(settings=OpenAISettings(base_url=server, model="m", retries=2, backoff_s=0.0))
    with pytest.raises(ModelServerError, match="HTTP 400"):
        agent.decide(_view())
    assert agent.server_calls == 1


def test_corrupt_cache_entry_is_dropped_not_used(server: str, tmp_path: Path) -> None:
    cache = ModelCallCache(tmp_path / "cache.sqlite")
    settings = OpenAISettings(base_url=server, model="m")
    request = build_request(settings, _view())
    serialized = serialize_request(request, _view().prompt.tool_texts)
    cache.put(settings.scope, serialized, {"x": 1})
    cache._db.execute("UPDATE model_calls SET response = '{not json'")
    assert cache.get(settings.scope, serialized) is None
    _Replay.responses = [(200, recorded("en_weather_tools_auto"))]
    agent = OpenAIAgent(settings=OpenAISettings(base_url=server, model="m", retries=0), cache=cache)
    assert isinstance(agent.decide(_view()), ToolCall) and agent.server_calls == 1


def test_run_options_reach_the_openai_agent() -> None:
    from runtime.engine import EngineResources
    from schemarouter.application.episode import load_engine
    from schemarouter.project import ProjectPaths

    root = ProjectPaths.at(Path(__file__).resolve().parents[1])
    base = load_engine(paths=root, catalog_sizes=(100,), agent="openai")
    options = {"base_url": "http://127.0.0.1:9/v1", "model": "tiny", "constrained_decoding": True}
    resources = EngineResources.load(
        catalogs_dir=root.catalogs_dir,
        compiled=base.compiled,
        catalog_sizes=(100,),
        agent="openai",
        agent_options=options,
    )
    agent = resources.make_agent(task=resources.task("S1-en-01"), catalog=resources.catalog(100))
    assert isinstance(agent, OpenAIAgent)
    assert agent.settings.base_url == "http://127.0.0.1:9/v1"
    assert agent.settings.model == "tiny" and agent.settings.constrained_decoding is True
    assert agent.cache is None  # no cache_path given: no cache
