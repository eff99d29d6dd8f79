"""Every interval the console and report.md print reads as what it is: the repeated-trials line labels the
spread between epochs, flags its zero width and shows the task-cluster bootstrap interval beside it; the
gate table shows the point estimate beside the interval whose bound the criterion tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from run_support import recorded_project
from typer.testing import CliRunner

from runtime.report.console import GATE_COLUMNS, print_verdict
from runtime.report.epochs_text import epoch_lines
from schemarouter.cli.app import app


def _epochs_report(per_epoch: list[float], low: float, high: float) -> dict[str, Any]:
    mean = sum(per_epoch) / len(per_epoch)
    return {
        "bootstrap": {"confidence": 0.95, "iterations": 10_000},
        "scope": {"tasks_per_cell": {"min": 5, "max": 5}},
        "metrics": {"C": {"100": {"task_pass": {"point": mean, "ci_low": 0.2, "ci_high": 0.375}}}},
        "epochs": {
            "epochs": len(per_epoch),
            "pass_hat_k": {"C": {"100": {"1": mean, "2": 0.25}}},
            "task_pass_over_epochs": {
                "C": {"100": {"per_epoch": per_epoch, "mean": mean, "ci_low": low, "ci_high": high}}
            },
        },
    }


def test_a_zero_width_spread_between_epochs_is_labelled_flagged_and_beside_the_bootstrap() -> None:
    (line,) = epoch_lines(_epochs_report([0.2917, 0.2917], 0.2917, 0.2917))
    assert line == (
        "C catalog 100: pass^1 0.2917, pass^2 0.25; "
        "task_pass 0.2917, task-cluster bootstrap 95% CI [0.2, 0.375]; "
        "spread between 2 epochs (t over the epoch means) [0.2917, 0.2917] "
        "⚑ zero width: every epoch's pass rate is the same"
    )


def test_a_spread_with_width_carries_no_flag() -> None:
    (line,) = epoch_lines(_epochs_report([0.25, 0.3], 0.1, 0.45))
    assert "spread between 2 epochs (t over the epoch means) [0.1, 0.45]" in line
    assert "⚑" not in line and "task-cluster bootstrap 95% CI [0.2, 0.375]" in line


def test_a_one_epoch_report_has_no_repeated_trials_line() -> None:
    assert epoch_lines({"metrics": {}}) == []


@pytest.fixture(scope="module")
def two_epoch_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The reference agent, two epochs, on one stratum x language cell at catalog 100 (a sub-scope)."""
    tmp = tmp_path_factory.mktemp("epochs")
    paths = recorded_project(tmp)
    args = ["--project-dir", str(paths.root), "run", "--epochs", "2", "--tasks", "S1,en", "--catalogs", "100"]
    args += ["--run-dir", str(tmp / "run"), "--workers", "1", "--no-plots"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return result.output, tmp / "run"


def test_sr_run_epochs_2_prints_the_spread_as_such(two_epoch_run: tuple[str, Path]) -> None:
    output, run_dir = two_epoch_run
    report = json.loads((run_dir / "report.json").read_text())
    static = report["metrics"]["SR-5-STATIC"]["100"]["task_pass"]
    lines = [ln for ln in output.splitlines() if ln.startswith("SR-5-STATIC catalog 100:")]
    print("\n".join(lines))
    (line,) = lines
    assert "task_pass over" not in line
    assert "spread between 2 epochs (t over the epoch means)" in line
    assert "⚑ zero width: every epoch's pass rate is the same" in line  # the reference agent repeats itself
    assert f"task-cluster bootstrap 95% CI [{static['ci_low']:.4g}, {static['ci_high']:.4g}]" in line
    markdown = (run_dir / "report.md").read_text()
    assert f"- {line}" in markdown


def test_the_gate_table_shows_the_estimate_beside_the_tested_bound(two_epoch_run: tuple[str, Path]) -> None:
    _, run_dir = two_epoch_run
    report = json.loads((run_dir / "report.json").read_text())
    from rich.console import Console

    console = Console(width=400, record=True)
    print_verdict(console, report)
    text = console.export_text()
    header = next(ln for ln in text.splitlines() if "statistic" in ln and "estimate" in ln)
    assert header.split() == [c for col in GATE_COLUMNS for c in col.split()]
    g1 = report["gate"]["by_catalog"]["100"]["criteria"][0]
    row = next(ln for ln in text.splitlines() if f" {g1['code']} " in ln).split()
    value, estimate = row[4], row[5]
    assert value == f"{g1['value']:.4g}" and estimate == f"{g1['point']:.4g}"
    assert g1["statistic"] == "ci_low" and g1["value"] == g1["ci_low"]  # the bound the criterion tests
