"""The openai agent against other servers' response shapes, over a real loopback HTTP server.

tests/fixtures/llm/servers/ holds vLLM, Ollama and OpenAI API responses in their documented formats
(see its README): tool calls with ids, parallel calls, every finish_reason, refusals, text beside a
call. Also: what each mode sends, the cache's server scope, retries and Retry-After.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from llm_loopback import Loopback, loopback

from runtime.agents.http_client import (
    ChatClient,
    ModelServerError,
    Transport,
    backoff_delay,
    retry_after_seconds,
)
from runtime.agents.model_cache import ModelCallCache
from runtime.agents.openai_agent import (
    OpenAIAgent,
    OpenAISettings,
    build_request,
    epoch_seed,
    openai_agent_from,
)
from runtime.agents.protocol import AgentView, BadOutput, CannotProceed, FinalAnswer, ToolCall
from runtime.agents.server_templates import template_warnings
from runtime.agents.transcript import TOOLS_HEADER
from runtime.catalog.model import Endpoint, FieldSpec
from runtime.prompt import HistoryEntry, build_prompt
from schemarouter.application.model_cache import cache_stats

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

SERVERS = Path(__file__).parent / "fixtures" / "llm" / "servers"


def case(server: str, name: str) -> dict[str, Any]:
    return json.loads((SERVERS / f"{server}.json").read_text())["cases"][name]


def _endpoint(name: str, route: str, field: str) -> Endpoint:
    return Endpoint(
        route_id=route,
        name=name,
        domain="geo",
        summary=f"{name} summary",
        description="",
        summaries={"en": f"{name} summary"},
        inputs=(FieldSpec(name=field, json_type="string", semantic_id="geo.place_name", description="x"),),
        outputs=(),
        side_effect="read",
        errors=(),
    )


ENDPOINTS = (
    _endpoint("geo_geocode", "geo.geocode.v1", "place"),
    _endpoint("weather_forecast_daily", "weather.daily.v1", "date"),
)


def view(history: bool = True) -> AgentView:
    past = (
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
    prompt = build_prompt(
        system_prompt="sys", query="weather in Paris", history=past if history else (), exposed=ENDPOINTS
    )
    return AgentView(turn=2, prompt=prompt, exposed=ENDPOINTS, history=past if history else ())


def decide(response: dict[str, Any], **settings: Any) -> tuple[Any, Loopback]:
    with loopback(Loopback(scripted=[(200, response, {})])) as server:
        agent = OpenAIAgent(
            settings=OpenAISettings(base_url=server.base_url, model="m", retries=0, **settings)
        )
        decision = agent.decide(view())
        assert agent.records[-1].finish_reason == response["choices"][0]["finish_reason"]
    return decision, server


@pytest.mark.parametrize("server", ["openai", "vllm", "ollama"])
def test_a_tool_call_with_an_id_is_read(server: str) -> None:
    decision, _ = decide(case(server, "tool_call_with_id"))
    assert isinstance(decision, ToolCall) and decision.tool_name == "geo_geocode"
    assert decision.arguments["place"] == "Paris, France"


@pytest.mark.parametrize("server", ["openai", "vllm"])
def test_parallel_calls_are_a_recorded_violation_and_the_request_forbids_them(server: str) -> None:
    decision, loop = decide(case(server, "parallel_calls"))
    assert isinstance(decision, BadOutput)
    assert (
        decision.error.startswith("2 tool calls in one response")
        and "parallel_tool_calls is false" in decision.error
    )
    assert decision.tool_name == "geo_geocode"
    assert loop.requests[0]["parallel_tool_calls"] is False


def test_text_beside_a_call_keeps_the_call() -> None:
    decision, _ = decide(case("openai", "content_and_tool_call"))
    assert decision == ToolCall("geo_geocode", {"place": "Paris"})


def test_a_refusal_ends_the_turn_as_cannot_proceed() -> None:
    decision, _ = decide(case("openai", "refusal"))
    assert isinstance(decision, CannotProceed) and decision.reason.startswith("refusal: I'm sorry")


@pytest.mark.parametrize(
    ("server", "name", "kind", "detail"),
    [
        ("openai", "finish_stop_text", FinalAnswer, "sunny"),
        ("ollama", "finish_stop_text", FinalAnswer, "light rain"),
        ("openai", "finish_length", BadOutput, "finish_reason length"),
        ("ollama", "finish_length", BadOutput, "finish_reason length"),
        ("vllm", "finish_length_in_arguments", BadOutput, "finish_reason length"),
        ("openai", "finish_content_filter", BadOutput, "content_filter"),
        ("openai", "finish_function_call_legacy", ToolCall, "geo_geocode"),
    ],
)
def test_every_finish_reason(server: str, name: str, kind: type, detail: str) -> None:
    decision, _ = decide(case(server, name))
    assert isinstance(decision, kind)
    assert detail in json.dumps(decision.__dict__, ensure_ascii=False)


def test_parallel_tool_calls_true_is_refused() -> None:
    spec = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "temperature": 0, "seed": 0, "max_tokens": 8}
    spec |= {"timeout_s": 1, "retries": 0, "backoff_s": 0, "constrained_decoding": False}
    with pytest.raises(Exception, match="parallel_tool_calls true is not supported"):
        openai_agent_from({**spec, "parallel_tool_calls": True}, {})


def test_native_request_carries_every_exposed_tool_as_counted() -> None:
    v = view()
    request = build_request(OpenAISettings(base_url="http://x/v1", model="m"), v)
    assert [t["function"]["name"] for t in request["tools"]] == ["geo_geocode", "weather_forecast_daily"]
    assert request["tools"] == list(v.prompt.tools)
    assert request["messages"] == list(v.prompt.messages)


def test_constrained_request_shows_every_tool_text_in_the_prompt() -> None:
    v = view()
    request = build_request(OpenAISettings(base_url="http://x/v1", model="m", constrained_decoding=True), v)
    assert "tools" not in request
    system = request["messages"][0]["content"]
    assert system.startswith("sys\n\n" + TOOLS_HEADER)
    for text in v.prompt.tool_texts:  # exactly the texts the engine counted, one per line
        assert f"\n{text}\n" in system
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert request["messages"][2]["content"] == '{"action":"geo_geocode","arguments":{"place":"Paris"}}'
    assert (
        request["messages"][3]["content"]
        == 'Result of call_1 (geo_geocode): {"latitude":48.85,"status":"ok"}'
    )
    branches = request["response_format"]["schema"]["anyOf"]
    assert [b["properties"]["action"]["const"] for b in branches] == [
        "geo_geocode",
        "weather_forecast_daily",
        "final_answer",
    ]


def test_a_template_that_drops_tool_results_gets_them_as_text_and_a_warning() -> None:
    settings = OpenAISettings(base_url="http://x/v1", model="m", server_template="chatml-function-calling")
    messages = build_request(settings, view())["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[3]["content"].startswith("Result of call_1 (geo_geocode): ")
    warnings = template_warnings("chatml-function-calling", constrained=False)
    assert any("descriptions are not rendered" in w for w in warnings)
    assert any("HTML-escaped" in w for w in warnings)
    assert template_warnings("chatml", constrained=True) == []
    assert template_warnings(None, constrained=False) == []


def test_sampling_options_reach_the_request_and_epochs_derive_their_seed() -> None:
    settings = OpenAISettings(
        base_url="http://x/v1", model="m", max_tokens=64, temperature=0.7, top_p=0.9, seed=5
    )
    request = build_request(settings, view())
    assert (request["max_tokens"], request["temperature"], request["top_p"], request["seed"]) == (
        64,
        0.7,
        0.9,
        5,
    )
    assert "top_p" not in build_request(OpenAISettings(base_url="http://x/v1", model="m"), view())
    seeds = {epoch_seed(5, e) for e in range(1, 6)}
    assert epoch_seed(5, 1) == 5 and len(seeds) == 5 and epoch_seed(5, 2) == epoch_seed(5, 2)
    second = OpenAISettings(base_url="http://x/v1", model="m", seed=5, epoch=2)
    assert build_request(second, view())["seed"] == epoch_seed(5, 2)


def test_the_cache_never_crosses_servers_epochs_or_fingerprints(tmp_path: Path) -> None:
    answer = case("openai", "tool_call_with_id")
    path = tmp_path / "calls.sqlite"
    with loopback(Loopback(answer=lambda _: answer)) as a, loopback(Loopback(answer=lambda _: answer)) as b:
        first = OpenAIAgent(OpenAISettings(base_url=a.base_url, model="m", retries=0), ModelCallCache(path))
        first.decide(view())
        again = OpenAIAgent(OpenAISettings(base_url=a.base_url, model="m", retries=0), ModelCallCache(path))
        again.decide(view())
        assert again.server_calls == 0  # same server: replayed
        other = OpenAIAgent(OpenAISettings(base_url=b.base_url, model="m", retries=0), ModelCallCache(path))
        other.decide(view())
        assert other.server_calls == 1 and len(b.raw) == 1  # same model name, another server: a miss
        epoch2 = OpenAIAgent(
            OpenAISettings(base_url=a.base_url, model="m", retries=0, epoch=2), ModelCallCache(path)
        )
        epoch2.decide(view())
        assert epoch2.server_calls == 1
        moved = OpenAIAgent(OpenAISettings(base_url=a.base_url, model="m", retries=0), ModelCallCache(path))
        moved.live_fingerprint = "fp_other"  # the live server now reports another fingerprint
        moved.decide(view())
        assert moved.server_calls == 1
    stats = ModelCallCache(path, create=False).stats()
    assert stats["entries"] == 3 and {g["base_url"] for g in stats["groups"]} == {a.base_url, b.base_url}


def test_cache_stats_count_the_write_ahead_log_a_worker_left(tmp_path: Path) -> None:
    """A run's worker exits without closing its connection: its writes are still in ``-wal``."""
    path = tmp_path / "calls.sqlite"
    answer = case("openai", "tool_call_with_id")
    with loopback(Loopback(answer=lambda _: answer)) as a:
        writer = ModelCallCache(path)  # never closed, as in a worker process
        OpenAIAgent(OpenAISettings(base_url=a.base_url, model="m", retries=0), writer).decide(view())
    wal = path.with_name(path.name + "-wal")
    assert wal.stat().st_size > 0
    reader = ModelCallCache(path, create=False)
    left = reader.stats()
    reader.close()
    assert left["entries"] == 1
    assert left["file_bytes"] == path.stat().st_size + wal.stat().st_size > path.stat().st_size
    writer.close()  # the last connection folds the log into the file and removes it
    assert not wal.exists()
    assert cache_stats(path)["file_bytes"] == path.stat().st_size


def test_cache_prune_and_a_missing_cache(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite"
    with pytest.raises(Exception, match="no model-call cache there"):
        ModelCallCache(path, create=False)
    assert not path.exists()
    answer = case("openai", "tool_call_with_id")
    with loopback(Loopback(answer=lambda _: answer)) as a:
        OpenAIAgent(OpenAISettings(base_url=a.base_url, model="m", retries=0), ModelCallCache(path)).decide(
            view()
        )
    cache = ModelCallCache(path, create=False)
    assert cache.prune(base_url="http://elsewhere/v1") == 0
    assert cache.prune(base_url=a.base_url + "/") == 1 and cache.stats()["entries"] == 0
    with pytest.raises(Exception, match="give --base-url, --model or --all"):
        cache.prune()


def test_connections_are_reused() -> None:
    answer = case("openai", "tool_call_with_id")
    with loopback(Loopback(answer=lambda _: answer)) as server:
        agent = OpenAIAgent(OpenAISettings(base_url=server.base_url, model="m", retries=0))
        agent.decide(view())
        agent.decide(view(history=False))
    assert len(server.client_ports) == 2 and server.client_ports[0] == server.client_ports[1]


def test_retry_after_is_honoured_and_backoff_is_jittered() -> None:
    ok = case("openai", "tool_call_with_id")
    busy = {"error": {"message": "rate limited"}}
    script = [(429, busy, {"Retry-After": "2"}), (503, busy, {}), (200, ok, {})]
    with loopback(Loopback(scripted=script)) as server:
        slept: list[float] = []
        client = ChatClient(
            base_url=server.base_url,
            transport=Transport(retries=3, backoff_s=0.5),
            sleep=slept.append,
            rng=random.Random(1),
        )
        assert client.post(b"{}")["id"] == ok["id"] and client.calls == 3
    assert slept[0] == 2.0 and 0.0 <= slept[1] <= 1.0  # Retry-After, then full jitter in [0, 0.5 * 2]
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0
    assert retry_after_seconds("9999") == 120.0 and retry_after_seconds("soon") is None
    assert all(0 <= backoff_delay(3, 1.0, random.Random(s)) <= 4.0 for s in range(20))


def test_client_errors_are_not_retried_and_a_missing_server_is_one_clear_error() -> None:
    with loopback(Loopback(scripted=[(400, {"error": "bad"}, {})] * 3)) as server:
        client = ChatClient(
            base_url=server.base_url, transport=Transport(retries=2, backoff_s=0), sleep=lambda _: None
        )
        with pytest.raises(ModelServerError, match="HTTP 400") as answered:
            client.post(b"{}")
        assert client.calls == 1
        assert answered.value.stops_session is None  # the server answered: this request's trouble
    dead = ChatClient(
        base_url="http://127.0.0.1:9/v1", transport=Transport(retries=1, backoff_s=0), sleep=lambda _: None
    )
    with pytest.raises(ModelServerError, match="cannot connect") as refused:
        dead.post(b"{}")
    assert (
        refused.value.stops_session
        == "the model server at http://127.0.0.1:9/v1/chat/completions cannot be reached"
    )


def test_a_server_id_names_a_server_that_moved_to_another_port(tmp_path: Path) -> None:
    answer = case("openai", "tool_call_with_id")
    path = tmp_path / "calls.sqlite"
    with loopback(Loopback(answer=lambda _: answer)) as a, loopback(Loopback(answer=lambda _: answer)) as b:
        for server in (a, b):
            settings = OpenAISettings(
                base_url=server.base_url, model="m", retries=0, server_id="llama/1/chatml"
            )
            OpenAIAgent(settings, ModelCallCache(path)).decide(view())
    assert len(a.raw) == 1 and len(b.raw) == 0  # the same named server on a new port: replayed
    assert [g["base_url"] for g in ModelCallCache(path, create=False).stats()["groups"]] == ["llama/1/chatml"]
