"""The server's reported prompt_tokens against the engine's count, per mode, on recorded real turns.

tests/fixtures/llm/engine_turns/ holds model calls recorded from llama-cpp-python with Gemma 3 270M
(recorder/record_engine_turns.py): the prompt the engine counted, the exact request body and the
server's exact response. Each fixture is checked three ways:

1. the agent still renders exactly the recorded request from the counted prompt (so the fixtures
   describe today's renderer, and fail when it changes without a new recording);
2. the engine's count of that prompt is the count recorded in the episode's trace;
3. the server's prompt_tokens, less the chatml markers' known per-message cost, over the engine's
   count lies within the mode's stated tolerance (schemarouter/application/token_agreement.py, why).

In constrained mode (the smoke's), the prompt the plain chatml template renders is rebuilt from the
request, and every text the engine counted is found in it verbatim: nothing counted is unseen.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from runtime.agents.model_cache import serialize_request
from runtime.agents.openai_agent import OpenAISettings, build_request
from runtime.agents.protocol import AgentView
from runtime.prompt import Prompt
from runtime.tokens import TokenCounter, TokenizerConfig, load_tokenizer
from schemarouter.application.token_agreement import TOLERANCES, compared_ratio

TURNS = Path(__file__).parent / "fixtures" / "llm" / "engine_turns"
FIXTURES = sorted(TURNS.glob("*.json"))
SPEC_OPENAI = {"temperature": 0.0, "seed": 0, "max_tokens": 256}  # spec/0.14/agent.yaml openai


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return TokenCounter(load_tokenizer(TokenizerConfig()), per_message_overhead=3, reply_priming=3)


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def prompt_of(record: dict[str, Any]) -> Prompt:
    engine = record["engine_prompt"]
    texts = tuple(engine["tool_texts"])
    return Prompt(
        messages=tuple(engine["messages"]), tools=tuple(json.loads(t) for t in texts), tool_texts=texts
    )


def settings_of(record: dict[str, Any]) -> OpenAISettings:
    return OpenAISettings(
        base_url="http://127.0.0.1/v1",
        model="gemma-3-270m-q4_k_m",
        constrained_decoding=record["mode"] == "constrained",
        server_template=record["server_chat_format"],
        **SPEC_OPENAI,
    )


def test_every_mode_has_recorded_turns() -> None:
    modes = {load(p)["mode"] for p in FIXTURES}
    assert modes == set(TOLERANCES) == {"constrained", "native"}


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_server_and_engine_counts_agree_within_the_modes_tolerance(path: Path, counter: TokenCounter) -> None:
    record = load(path)
    prompt = prompt_of(record)
    view = AgentView(turn=record["turn"], prompt=prompt, exposed=(), history=())
    request = build_request(settings_of(record), view)
    sent = serialize_request(request, prompt.tool_texts if "tools" in request else None).text
    assert sent == record["request"], "the renderer changed: record the fixtures again"

    counted = counter.prompt(prompt.token_parts(), prompt.tool_texts)
    assert counted.input_tokens == record["engine_counted"]["input_tokens"]
    assert counted.schema_tokens == record["engine_counted"]["schema_tokens"]

    server = json.loads(record["response"])["usage"]["prompt_tokens"]
    tolerance = TOLERANCES[record["mode"]]
    ratio = compared_ratio(server, counted.input_tokens, len(prompt.messages))
    assert tolerance.holds(ratio), f"{path.stem}: server {server}, engine {counted.input_tokens}: {ratio:.3f}"


def _chatml(messages: list[dict[str, Any]]) -> str:
    """llama-cpp-python's ``format_chatml`` (llama_chat_format.py): system, user, assistant as given."""
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    out = f"<|im_start|>system\n{system}<|im_end|>\n"
    for m in messages:
        if m["role"] in ("user", "assistant"):
            out += f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n"
    return out + "<|im_start|>assistant\n"


@pytest.mark.parametrize(
    "path", [p for p in FIXTURES if p.name.startswith("constrained")], ids=lambda p: p.stem
)
def test_constrained_mode_shows_everything_counted(path: Path) -> None:
    record = load(path)
    rendered = _chatml(json.loads(record["request"])["messages"])
    prompt = prompt_of(record)
    for text in prompt.tool_texts:
        assert text in rendered
    for role, content in prompt.token_parts():
        if role == "assistant":  # a past call: its arguments are shown in the call's text form
            for call in json.loads(content):
                args = json.loads(call["arguments"])
                shown = json.dumps(args, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
                assert shown[1:-1] in rendered and f'"action":"{call["name"]}"' in rendered
        else:
            assert content in rendered
