"""Registered components are scoped by the compiled experiment (issue #24, item 1): a metric, a gate
statistic and a retrieval strategy registered from this module (as a successor's modules would be)
change no byte of 0.14's outputs, and a run stored before they existed still scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from registry_support import scratch
from run_support import recorded_project

from runtime.engine.metrics import registry as metric_registry
from runtime.engine.metrics.registry import EpisodeView, metric
from runtime.retrieval import strategy as strategy_registry
from runtime.retrieval.index import Ranking
from runtime.retrieval.strategy import StrategyContext, register_strategy, strategy_codes
from runtime.run import load_result_set
from runtime.run.resultset import read_terminal_outcomes
from runtime.scoring.statistics import StatisticInput, statistic
from runtime.scoring.statistics import registry as statistic_registry
from schemarouter.application.run import RunRequest, run_experiment
from schemarouter.application.score import ScoreRequest, score_runs
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

SCOPE = {"tasks": "S1,en", "catalogs": "100", "workers": 1, "plots": False}
CLOCK = ("wall_latency_ms", "latency_us")  # what the clock measures: the only bytes allowed to differ


def _without_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_clock(v) for k, v in value.items() if k not in CLOCK}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


def _outputs(run_dir: Path) -> dict[str, Any]:
    traces = {
        o.key.label(): _without_clock(json.loads(o.trace_json or "null"))
        for o in read_terminal_outcomes(load_result_set([run_dir]), with_traces=True)
    }
    return {
        "per_task": (run_dir / "per_task.jsonl").read_bytes(),
        "report": (run_dir / "report.json").read_bytes(),
        "traces": traces,
    }


def _register_successor_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    strategy_codes()  # the built-ins first, then a copy of each registry that the test may extend
    scratch(monkeypatch, metric_registry.METRICS, statistic_registry.STATISTICS, strategy_registry.STRATEGIES)

    @metric("turns_used")
    def turns_used(view: EpisodeView) -> int:
        return len(view.turns)

    @statistic("always_one", compares=("difference", "treatment"))
    def always_one(s: StatisticInput) -> tuple[float | None, str | None]:
        return 1.0, None

    @register_strategy("reversed_ids")
    class ReversedIds:
        """Ranks by route ID, reversed: never named by 0.14."""

        code = "reversed_ids"

        def __init__(self, context: StrategyContext) -> None:
            self._ids = tuple(reversed(context.index.route_ids))

        @property
        def size(self) -> int:
            return len(self._ids)

        def rank_query(self, query: str, depth: int) -> Ranking:
            raise AssertionError("0.14 never instantiates a strategy it does not name")

        def rank_with_state(self, query: str, state_text: str, depth: int) -> Ranking:
            raise AssertionError("0.14 never instantiates a strategy it does not name")


def test_modules_registered_for_a_successor_change_no_byte_of_0_14(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths: ProjectPaths = recorded_project(tmp_path)
    before = run_experiment(paths, RunRequest(run_dir=tmp_path / "before", **SCOPE))  # type: ignore[arg-type]
    assert before.exit_code == 0
    _register_successor_modules(monkeypatch)
    assert "turns_used" in metric_registry.METRICS and "reversed_ids" in strategy_codes()
    after = run_experiment(paths, RunRequest(run_dir=tmp_path / "after", **SCOPE))  # type: ignore[arg-type]
    assert after.exit_code == 0
    old, new = _outputs(before.run_dir), _outputs(after.run_dir)
    assert new["per_task"] == old["per_task"]
    assert new["traces"] == old["traces"] and len(new["traces"]) > 0
    assert all("turns_used" not in t["metrics"] for t in new["traces"].values())
    assert new["report"] == old["report"]

    # The run stored before the modules existed still scores, to the same rows.
    rescored = score_runs(paths, ScoreRequest((before.run_dir,), out=tmp_path / "rescored", plots=False))
    assert (tmp_path / "rescored" / "per_task.jsonl").read_bytes() == old["per_task"]
    assert rescored["gate"] == json.loads(old["report"])["gate"]
