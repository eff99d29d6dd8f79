"""The full reference experiment with the real engine, run once for this module (2,700 episodes in a
frozen copy of the project), then checked: terminal with no infrastructure event, the golden files,
episode determinism, the report files, and that per_task.jsonl alone reproduces the reported numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from run_support import REPO, recorded_project

from compiler import compile_project
from runtime.report.golden import check_golden
from runtime.run import EngineAdapter, EngineSetup, load_result_set
from runtime.run.engine_port import episode_record
from runtime.run.resultset import read_terminal_outcomes
from runtime.run.store import EpisodeStore
from runtime.scoring import ScoringSpec
from runtime.scoring.bootstrap import resample_indices, task_layout
from runtime.scoring.estimates import round_sig
from runtime.spec_model.metrics import MetricSpec
from schemarouter.application.run import RunRequest, run_experiment
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    paths = recorded_project(tmp_path_factory.mktemp("reference"))
    outcome = run_experiment(paths, RunRequest(workers=2, plots=True))
    compiled = compile_project(paths, write_manifest=False)
    return {
        "paths": paths,
        "compiled": compiled,
        "spec": ScoringSpec.from_compiled(compiled),
        "run_dir": outcome.run_dir,
        "exit_code": outcome.exit_code,
        "report": outcome.report,
    }


def _rows(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "per_task.jsonl").read_text().splitlines()]


def test_the_reference_run_is_terminal_and_scored(reference: dict[str, Any]) -> None:
    assert reference["exit_code"] == 0
    state = load_result_set([reference["run_dir"]]).dirs[0]
    assert len(state.committed) == 2700 and state.events == ()
    report = reference["report"]
    assert report["scope"]["preregistered"] and report["gate"]["verdict"] in ("PASS", "FAIL")


def test_golden_files_match_the_reference_run(reference: dict[str, Any]) -> None:
    problems = check_golden(ProjectPaths.at(REPO).golden_dir, reference["report"])
    assert problems == [], "\n".join(problems[:40])


def test_episodes_are_deterministic(reference: dict[str, Any]) -> None:
    """Re-run a spread of episodes in this process: same metrics and the same trace, latency aside."""
    paths: ProjectPaths = reference["paths"]
    result_set = load_result_set([reference["run_dir"]])
    stored = {o.key: o for o in read_terminal_outcomes(result_set)}
    sample = result_set.scope.episode_keys()[::61]
    engine = EngineAdapter()
    loaded = engine.load(
        EngineSetup(
            paths.root,
            reference["compiled"],
            result_set.scope.catalogs,
            "reference",
            catalogs_dir=paths.catalogs_dir,
        )
    )
    with EpisodeStore(reference["run_dir"], readonly=True) as store:
        for key in sample:
            again = episode_record(engine.run(loaded, loaded.tasks[key.task_id], key.condition, key.catalog))
            assert again.metrics == stored[key].metrics, key
            assert _without_latency(again.trace_json) == _without_latency(store.read_trace(key) or ""), key


def _without_latency(trace_json: str) -> Any:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if "latency" not in k}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(json.loads(trace_json))


def test_per_task_rows_alone_reproduce_every_point_estimate(reference: dict[str, Any]) -> None:
    rows = _rows(reference["run_dir"])
    report = reference["report"]
    spec = reference["spec"]
    assert len(rows) == 2700
    for condition, by_catalog in report["metrics"].items():
        for catalog, block in by_catalog.items():
            cell = [r for r in rows if r["condition"] == condition and r["catalog"] == int(catalog)]
            for metric_id, interval in block.items():
                assert interval["point"] == _point(spec.metric(metric_id), cell), (
                    condition,
                    catalog,
                    metric_id,
                )


def _point(metric: MetricSpec, rows: list[dict[str, Any]]) -> float | None:
    if metric.aggregate == "ratio":
        assert metric.numerator and metric.denominator
        den = sum(r[metric.denominator] for r in rows)
        return round_sig(sum(r[metric.numerator] for r in rows) / den) if den else None
    total = sum(r[metric.id] for r in rows)
    return round_sig(total / len(rows) if metric.aggregate == "mean" else float(total))


def test_per_task_rows_alone_reproduce_the_g1_interval(reference: dict[str, Any]) -> None:
    """Recompute G1 (paired task-pass difference) at catalog 100 from per_task.jsonl with a plain loop."""
    rows = [r for r in _rows(reference["run_dir"]) if r["catalog"] == 100]
    spec = reference["spec"]
    treatment = {r["task_id"]: r["task_pass"] for r in rows if r["condition"] == spec.gate.treatment}
    comparator = {r["task_id"]: r["task_pass"] for r in rows if r["condition"] == spec.gate.comparator}
    tasks = load_result_set([reference["run_dir"]]).scope.tasks
    layout = task_layout(tasks, strata=spec.strata, languages=spec.languages)
    indices = resample_indices(layout, iterations=spec.bootstrap.iterations, seed=spec.bootstrap.seed)
    diffs = [treatment[t] - comparator[t] for t in layout.task_ids]
    per_resample = [sum(diffs[p] for p in row) / layout.n for row in indices.tolist()]
    low = round_sig(float(np.percentile(per_resample, spec.bootstrap.percentiles()[0], method="linear")))
    g1 = next(c for c in reference["report"]["gate"]["by_catalog"]["100"]["criteria"] if c["code"] == "G1")
    assert g1["ci_low"] == low


def test_report_files_for_readers(reference: dict[str, Any]) -> None:
    run_dir = reference["run_dir"]
    md = (run_dir / "report.md").read_text()
    assert f"gate verdict **{reference['report']['gate']['verdict']}**" in md
    assert "| G1 |" in md and "| G6 |" in md and "Wall latency" in md
    for png in ("gate_forest.png", "recall_heatmap.png", "tokens_vs_pass.png"):
        assert (run_dir / png).stat().st_size > 10_000
    latency = json.loads((run_dir / "latency.json").read_text())
    assert latency["metrics"]["FULL"]["500"]["point"] > 0
