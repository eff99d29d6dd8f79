"""`sr run --concurrency N`: episodes in flight on threads over one engine, against a real loopback server.

The server answers a deterministic function of each request (a call to the first exposed tool, then a
final answer) after a random short delay, so episodes finish out of order. What must not move with N:
per_task.jsonl and every trace minus its wall latency (the retrieval calls' ``latency_us`` too); with
the cache on, which of two simultaneous identical requests recorded the hit is transport, but the
server sees the same number of calls. A SIGKILL mid-run at N = 32, then ``--resume``, commits every
episode exactly once.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from llm_loopback import Loopback, loopback
from run_support import frozen_project
from typer.testing import CliRunner

from runtime.run.store import STORE_FILE, EpisodeStore
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # several runs of a hundred episodes each

EPISODES = 144  # 72 tasks of S1 and S2 x 2 conditions x catalog 100
SCOPE = ("--conditions", "SR-5-STATIC,SR-5-STATE-AWARE", "--catalogs", "100", "--tasks", "S1,S2")
_JITTER = random.Random(7)  # only the delay is random; answers are a function of the request
_JITTER_LOCK = threading.Lock()
_SEEN = {"in_flight": 0, "peak": 0}  # requests being answered at once, as the server saw them


def scripted(request: dict[str, Any]) -> dict[str, Any]:
    """First turn: call the first exposed tool without arguments (the gate judges it); then answer."""
    with _JITTER_LOCK:
        delay = _JITTER.uniform(0.0, 0.01)
        _SEEN["in_flight"] += 1
        _SEEN["peak"] = max(_SEEN["peak"], _SEEN["in_flight"])
    try:
        time.sleep(delay)
    finally:
        with _JITTER_LOCK:
            _SEEN["in_flight"] -= 1
    turn = sum(1 for m in request["messages"] if m["role"] == "assistant")
    tools = request.get("tools") or []
    if turn == 0 and tools:
        call = {"id": "call_1", "type": "function", "function": {"name": tools[0]["function"]["name"]}}
        call["function"]["arguments"] = "{}"
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": "done"}, "stop"
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": request.get("model"),
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> ProjectPaths:
    return frozen_project(tmp_path_factory.mktemp("concurrency"))


def run_args(paths: ProjectPaths, base_url: str, run_dir: Path, *extra: str) -> list[str]:
    return [
        "--project-dir",
        str(paths.root),
        "run",
        "--agent",
        "openai",
        *SCOPE,
        "--no-plots",
        "--base-url",
        base_url,
        "--model",
        "scripted",
        "--retries",
        "0",
        "--run-dir",
        str(run_dir),
        *extra,
    ]


def sr_run(paths: ProjectPaths, base_url: str, run_dir: Path, *extra: str) -> str:
    result = CliRunner().invoke(app, run_args(paths, base_url, run_dir, *extra), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def traces(run_dir: Path, *, cache_provenance: bool = True) -> list[dict[str, Any]]:
    """Every trace in key order, without what is not deterministic (wall latency, retrieval latency),
    and without which episode's call was the cache hit unless ``cache_provenance``."""
    with EpisodeStore(run_dir, readonly=True) as store:
        out = [json.loads(store.read_trace(k) or "{}") for k in sorted(store.committed_keys())]
    for trace in out:
        trace.pop("wall_latency_ms")
        trace["metrics"].pop("wall_latency_ms", None)
        for turn in trace["turns"]:
            for call in turn["retrieval_calls"]:
                call.pop("latency_us", None)
            if not cache_provenance and turn["model_call"] is not None:
                turn["model_call"].pop("cached")
                turn["model_call"].pop("server_calls")
        if not cache_provenance and trace["model_calls"] is not None:
            trace["model_calls"].pop("cache_hits")
            trace["model_calls"].pop("server_calls")
    return out


@pytest.mark.parametrize("workers", ["1", "2"])
def test_n32_is_byte_identical_to_n1(project: ProjectPaths, tmp_path: Path, workers: str) -> None:
    with loopback(Loopback(answer=scripted)) as server:
        sr_run(project, server.base_url, tmp_path / "n1", "--concurrency", "1", "--no-cache")
        serial_requests = len(server.raw)
        _SEEN["peak"] = 0
        out = sr_run(
            project,
            server.base_url,
            tmp_path / "n32",
            "--concurrency",
            "32",
            "--workers",
            workers,
            "--no-cache",
        )
    assert f"x {32 // int(workers)} in flight" in out
    # More episodes run than requests (request_slots.py); the server never saw more than N at once.
    # (With answers this fast the run is CPU-bound and stays well below N; tests/test_request_slots.py
    # holds the slots full and shows the limit binding.)
    assert 0 < _SEEN["peak"] <= 32
    assert len(server.raw) == 2 * serial_requests
    one, many = traces(tmp_path / "n1"), traces(tmp_path / "n32")
    assert len(one) == EPISODES and one == many
    assert any(len(t["turns"]) == 2 for t in one)  # the gate judged a call in these episodes
    for name in ("per_task.jsonl", "report.json"):
        assert (tmp_path / "n1" / name).read_bytes() == (tmp_path / "n32" / name).read_bytes()


def test_with_the_cache_the_server_sees_each_request_once_at_any_n(
    project: ProjectPaths, tmp_path: Path
) -> None:
    with loopback(Loopback(answer=scripted)) as server:
        sr_run(project, server.base_url, tmp_path / "n1", "--model-cache", str(tmp_path / "c1.sqlite"))
        serial = sorted(server.raw)
        server.raw.clear()
        sr_run(
            project,
            server.base_url,
            tmp_path / "n32",
            "--concurrency",
            "32",
            "--workers",
            "1",
            "--model-cache",
            str(tmp_path / "c32.sqlite"),
        )
        concurrent = sorted(server.raw)
    assert concurrent == serial  # single flight: no duplicate call, however the episodes overlap
    assert len(set(serial)) == len(serial) < 2 * EPISODES  # identical first turns across conditions were hits
    one = traces(tmp_path / "n1", cache_provenance=False)
    assert one == traces(tmp_path / "n32", cache_provenance=False)
    assert (tmp_path / "n1" / "per_task.jsonl").read_bytes() == (
        tmp_path / "n32" / "per_task.jsonl"
    ).read_bytes()


def _committed(run_dir: Path) -> int:
    if not (run_dir / STORE_FILE).is_file():
        return 0
    try:
        with EpisodeStore(run_dir, readonly=True) as store:
            return len(store.committed_keys())
    except Exception:  # the store is being created
        return 0


def test_sigkill_at_n32_then_resume_commits_every_episode_once(project: ProjectPaths, tmp_path: Path) -> None:
    run_dir = tmp_path / "killed"

    def slow(request: dict[str, Any]) -> dict[str, Any]:
        time.sleep(0.05)
        return scripted(request)

    with loopback(Loopback(answer=slow)) as server:
        args = run_args(
            project, server.base_url, run_dir, "--concurrency", "32", "--workers", "1", "--no-cache"
        )
        child = subprocess.Popen(
            [sys.executable, "-c", "from schemarouter.cli.app import main; main()", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "COLUMNS": "200"},
        )
        deadline = time.monotonic() + 120
        while _committed(run_dir) < 20 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.02)
        in_flight_when_killed = len(server.raw)
        child.send_signal(signal.SIGKILL)
        child.wait()
        before = _committed(run_dir)
        assert 20 <= before < EPISODES, before
        assert in_flight_when_killed > before  # episodes were in flight when it died
        resume = ["--project-dir", str(project.root), "run", "--resume", "--run-dir", str(run_dir)]
        result = CliRunner().invoke(
            app, [*resume, "--base-url", server.base_url, "--no-cache", "--no-plots", "--concurrency", "32"]
        )
        out = result.output
    assert result.exit_code == 0, out
    assert f"committed {EPISODES - before} this session ({before} before), 0 infrastructure events" in out
    with EpisodeStore(run_dir, readonly=True) as store:
        assert len(store.committed_keys()) == EPISODES
        assert not store.events(unresolved_only=True)
    with sqlite3.connect(run_dir / STORE_FILE) as db:  # every row once: no key committed twice
        rows = db.execute("SELECT COUNT(*), COUNT(DISTINCT task_id || '|' || condition) FROM episodes")
        assert tuple(rows.fetchone()) == (EPISODES, EPISODES)
    assert (run_dir / "per_task.jsonl").is_file()


def test_an_uneven_n_over_two_processes_never_exceeds_n(project: ProjectPaths, tmp_path: Path) -> None:
    """N = 5 on two processes: 3 + 2 request slots, not 3 + 3. Answers are slow, so the slots fill."""

    def slow(request: dict[str, Any]) -> dict[str, Any]:
        with _JITTER_LOCK:
            _SEEN["in_flight"] += 1
            _SEEN["peak"] = max(_SEEN["peak"], _SEEN["in_flight"])
        try:
            time.sleep(0.1)
        finally:
            with _JITTER_LOCK:
                _SEEN["in_flight"] -= 1
        return scripted(request)

    _SEEN["peak"] = 0
    with loopback(Loopback(answer=slow)) as server:
        args = [
            *("--project-dir", str(project.root), "run", "--agent", "openai", "--no-plots", "--no-cache"),
            *("--conditions", "SR-5-STATIC", "--catalogs", "100", "--tasks", "S1"),
            *("--base-url", server.base_url, "--model", "scripted", "--retries", "0"),
            *("--concurrency", "5", "--workers", "2", "--run-dir", str(tmp_path / "n5")),
        ]
        result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "2 workers x 3 in flight at most (5 in all)" in result.output
    assert _SEEN["peak"] == 5  # the slots were all used, and never one more


def _write_entries(path: str, worker: int) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from runtime.agents.model_cache import ModelCallCache, ServerScope, serialize_request

    cache = ModelCallCache(Path(path))
    scope = ServerScope(base_url="http://127.0.0.1:1/v1", model="m")

    def one(i: int) -> None:
        request = serialize_request({"messages": [{"role": "user", "content": f"{worker}-{i}"}]})
        cache.put(scope, request, {"choices": [], "n": f"{worker}-{i}"})
        assert cache.get(scope, request) == {"choices": [], "n": f"{worker}-{i}"}

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(one, range(60)))
    cache.close()


def test_the_model_call_cache_takes_concurrent_writers(tmp_path: Path) -> None:
    """Four processes of eight threads each write and read back one file at once (WAL, busy timeout)."""
    import multiprocessing

    from runtime.agents.model_cache import ModelCallCache

    path = str(tmp_path / "calls.sqlite")
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_write_entries, args=(path, w)) for w in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    stats = ModelCallCache(Path(path), create=False).stats()
    assert stats["entries"] == 4 * 60
