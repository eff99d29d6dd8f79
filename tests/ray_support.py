"""Helpers for the Ray executor tests: a loopback Ray cluster, a slowed real engine, worker processes.

The engine wrappers here travel to Ray workers by value (``register_by_value``), so a worker needs no
``tests/`` on its path. Each wraps the real engine: outputs stay the real ones, only slower.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime.run import EngineAdapter, EngineSetup, LoadedEngine
from schemarouter.application.run import RunDeps, RunOutcome, RunRequest, run_experiment
from schemarouter.project import ProjectPaths

# A few dozen episodes: two strata in English (12 tasks) x three conditions x two catalogs.
SUBSET = {"tasks": "S1,S3,en", "conditions": "C3,C5,FULL", "catalogs": "100,250"}
SUBSET_EPISODES = 12 * 3 * 2
RAY_MEMORY = {"object_store_memory": 80 * 1024 * 1024, "include_dashboard": False}


def run(paths: ProjectPaths, *, engine: Any = None, compiled: Any = None, **request: Any) -> RunOutcome:
    """`sr run` through the application layer; optionally another engine, or a spec compiled once."""
    return run_experiment(paths, RunRequest(**request), RunDeps(engine=engine, compiled=compiled))


def register_by_value(ray: Any) -> None:
    import sys

    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


@dataclass(frozen=True)
class SlowEngine:
    """The real engine, sleeping ``sleep_s`` before each episode (room to kill something mid-run)."""

    sleep_s: float
    load_log: str | None = None  # one line per load: the loading process's pid and its catalogs
    inner: EngineAdapter = field(default_factory=EngineAdapter)

    def load(self, setup: EngineSetup) -> LoadedEngine:
        if self.load_log is not None:
            import os

            with open(self.load_log, "a", encoding="utf-8") as log:
                log.write(f"{os.getpid()} {','.join(map(str, setup.catalog_sizes))}\n")
        return self.inner.load(setup)

    def metrics_audit(self, setup: EngineSetup) -> Any:
        return self.inner.metrics_audit(setup)

    def run(self, loaded: LoadedEngine, task: Any, condition_id: str, catalog_size: int) -> Any:
        time.sleep(self.sleep_s)
        return self.inner.run(loaded, task, condition_id, catalog_size)


def worker_pids() -> list[int]:
    """PIDs of live Ray episode workers (their process title names the actor class)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if cmdline.startswith("ray::EpisodeWorker") and state != "Z":
            pids.append(int(entry.name))
    return sorted(pids)


def scored_bytes(run_dir: Path) -> dict[str, bytes]:
    return {name: (run_dir / name).read_bytes() for name in ("per_task.jsonl", "report.json")}


def events(run_dir: Path) -> list[dict[str, Any]]:
    import sqlite3

    connection = sqlite3.connect(run_dir / "episodes.sqlite")
    try:
        rows = connection.execute(
            "SELECT task_id, condition, catalog, kind, session, resolved_at FROM events ORDER BY id"
        ).fetchall()
    finally:
        connection.close()
    names = ("task_id", "condition", "catalog", "kind", "session", "resolved_at")
    return [dict(zip(names, row, strict=True)) for row in rows]


def committed_count(run_dir: Path) -> int:
    import sqlite3

    path = run_dir / "episodes.sqlite"
    if not path.is_file():
        return 0
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return int(connection.execute("SELECT COUNT(*) FROM episodes").fetchone()[0])
        finally:
            connection.close()
    except sqlite3.Error:  # being created
        return 0


def model_reply(request: dict[str, Any]) -> dict[str, Any]:
    """A deterministic chat-completions answer: call the first exposed tool once, then answer."""
    tools = request.get("tools") or []
    called = any(m.get("role") == "tool" for m in request["messages"])
    if tools and not called:
        name = tools[0]["function"]["name"]
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "call_0", "type": "function", "function": {"name": name, "arguments": "{}"}}
            ],
        }
    else:
        message = {"role": "assistant", "content": "done"}
    return {
        "id": "x",
        "model": request["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": len(json.dumps(request)) // 4, "completion_tokens": 3},
    }
