"""A deterministic stand-in for the episode engine, with the executor's interface (load, run).

Metrics are drawn from sha256 of (task, condition, catalog), so every run gives the same values; wall
latency is real elapsed time, as with the real engine. Knobs, by ``EpisodeKey.label()``, make it
fail (``fail_keys``: raise, an infrastructure event), die (``crash_keys``: the worker process exits)
or slow down (``sleep_s``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime.core.errors import SchemaRouterError
from runtime.run import EpisodeKey, LoadedEngine, RunScope, TaskRef
from runtime.run.engine_port import EngineSetup
from runtime.run.store import EpisodeOutcome
from runtime.scoring import ScoringSpec

SPEC_DIR = Path(__file__).resolve().parents[1] / "spec" / "0.14"
SR_CONDITIONS = ("SR-5-STATIC", "SR-PROGRESSIVE-STATIC", "SR-5-STATE-AWARE")
PASS_RATE = {
    "SR-5-STATIC": 0.55,
    "SR-PROGRESSIVE-STATIC": 0.80,
    "SR-5-STATE-AWARE": 0.84,
    "FULL": 0.86,
    "ORACLE": 0.97,
}
RECALL = {"SR-5-STATIC": 0.6, "SR-PROGRESSIVE-STATIC": 0.7, "SR-5-STATE-AWARE": 0.995}
SCHEMA_TOKENS = {"SR-5-STATIC": 600, "SR-PROGRESSIVE-STATIC": 1400, "SR-5-STATE-AWARE": 700, "ORACLE": 350}


@functools.cache
def scoring_spec() -> ScoringSpec:
    """The repository experiment's scoring spec, read as scoring reads it: from the compiled models (the
    repository's current build, which tests/conftest.py keeps current)."""
    from schemarouter.application.compiled import compiled_without_writing
    from schemarouter.project import ProjectPaths

    return ScoringSpec.from_compiled(compiled_without_writing(ProjectPaths.at(SPEC_DIR.parents[1])))


def fake_tasks(per_cell: int = 6) -> list[TaskRef]:
    spec = scoring_spec()
    return [
        TaskRef(task_id=f"{code}-{lang}-{i:02d}", stratum=stratum, language=lang)
        for stratum, code in zip(spec.strata, spec.stratum_codes, strict=True)
        for lang in spec.languages
        for i in range(per_cell)
    ]


def full_scope(tasks: list[TaskRef] | None = None, **overrides: Any) -> RunScope:
    spec = scoring_spec()
    fields: dict[str, Any] = {
        "conditions": spec.conditions,
        "catalogs": spec.catalog_sizes,
        "tasks": tuple(sorted(tasks or fake_tasks(), key=lambda t: t.task_id)),
        "preregistered": tasks is None,
    }
    fields.update(overrides)
    return RunScope(**fields)


@dataclass
class FakeTrace:
    key: tuple[str, str, int]
    metrics: dict[str, Any]

    def model_dump_json(self) -> str:
        return json.dumps(
            {"trace_version": 0, "key": list(self.key), "metrics": self.metrics}, sort_keys=True
        )


@dataclass(frozen=True)
class FakeEngine:
    fail_keys: frozenset[str] = frozenset()
    crash_keys: frozenset[str] = frozenset()
    sleep_s: float = 0.0
    fail_load: bool = False
    tasks: tuple[TaskRef, ...] = field(default_factory=lambda: tuple(fake_tasks()))
    load_log: Path | None = None  # one line per load: the loading process's pid
    run_log: Path | None = None  # one line per episode: the running process's pid

    def load(self, setup: EngineSetup) -> LoadedEngine:
        _log_pid(self.load_log)
        if self.fail_load:
            raise OSError("simulated: the model server does not answer")
        return LoadedEngine(resources=None, tasks={t.task_id: t for t in self.tasks})

    def metrics_audit(self, setup: EngineSetup) -> Callable[[EpisodeOutcome], None]:
        return fake_audit

    def run(self, loaded: LoadedEngine, task: TaskRef, condition_id: str, catalog_size: int) -> FakeTrace:
        started = time.perf_counter()
        _log_pid(self.run_log)
        label = EpisodeKey(task.task_id, condition_id, catalog_size).label()
        if label in self.crash_keys:
            os._exit(3)
        if label in self.fail_keys:
            raise RuntimeError(f"simulated model server timeout on {label}")
        if self.sleep_s:
            time.sleep(self.sleep_s)
        metrics = fake_metrics(task.task_id, condition_id, catalog_size)
        metrics["wall_latency_ms"] = (time.perf_counter() - started) * 1000.0
        return FakeTrace((task.task_id, condition_id, catalog_size), metrics)


def fake_audit(outcome: EpisodeOutcome) -> None:
    """The fake engine's counterpart of runtime/engine/metrics_audit.py: the stored metrics must be the
    ones its trace names and the ones the fake computes for the key."""
    assert outcome.trace_json is not None
    trace = json.loads(outcome.trace_json)
    key = outcome.key
    expected = fake_metrics(key.task_id, key.condition, key.catalog)
    stored = {**outcome.metrics}
    if trace["key"] != [key.task_id, key.condition, key.catalog] or stored != expected:
        raise SchemaRouterError(f"episode {key.label()}: stored metrics differ from its trace")


def _log_pid(path: Path | None) -> None:
    if path is not None:
        with path.open("a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")


def _u(*parts: object) -> float:
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def fake_metrics(task_id: str, condition: str, catalog: int) -> dict[str, Any]:
    passed = int(_u(task_id, condition, catalog, "pass") < PASS_RATE[condition])
    tool_calls = 2 + int(_u(task_id, condition, catalog, "calls") * 3)
    milestones = 3
    reached = milestones if passed else int(_u(task_id, condition, catalog, "ms") * milestones)
    m: dict[str, Any] = {
        "task_pass": passed,
        "state_completion": reached / milestones,
        "unique_candidates_exposed": {"FULL": catalog, "ORACLE": 3}.get(condition, 5 + tool_calls),
        "tool_schema_tokens": SCHEMA_TOKENS.get(condition, catalog * 120)
        + int(_u(task_id, condition, catalog, "tok") * 200),
        "input_tokens": 3000 + int(_u(task_id, condition, catalog, "in") * 900),
        "retrieval_calls": 0
        if condition in ("FULL", "ORACLE")
        else 1 + int(condition == "SR-5-STATE-AWARE") * 2,
        "model_turns": tool_calls + 1,
        "tool_calls": tool_calls,
        "failed_executions": int(_u(task_id, condition, catalog, "fail") < 0.2),
        "unauthorized_destructive_executions": 0,
        "policy_integrity": 1.0,
        "integrity_consistent_attempts": tool_calls,
        "integrity_attempts": tool_calls,
    }
    if condition in SR_CONDITIONS:
        points = 1 + int(_u(task_id, catalog, "dp") * 3)
        hits = sum(_u(task_id, condition, catalog, "hit", i) < RECALL[condition] for i in range(points))
        initial_miss = int(_u(task_id, catalog, "miss") < 0.4)  # the same for every SR condition
        m.update(
            next_tool_recall_at_5=hits / points,
            recall_hits=hits,
            recall_decision_points=points,
            initial_miss_recovery=float(passed) if initial_miss else None,
            initial_miss=initial_miss,
            recovered=initial_miss * passed,
        )
    return m
