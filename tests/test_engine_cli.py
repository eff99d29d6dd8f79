"""`sr episode` through the CLI, for every condition."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "condition", ["SR-5-STATIC", "SR-PROGRESSIVE-STATIC", "SR-5-STATE-AWARE", "FULL", "ORACLE"]
)
def test_sr_episode_prints_a_readable_trace(condition: str, tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    result = CliRunner().invoke(
        app,
        [
            "--project-dir",
            str(ROOT),
            "episode",
            "S3-ko-01",
            "--condition",
            condition,
            "--catalog",
            "250",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "turn 1" in result.output and "ended by" in result.output
    trace = json.loads(out.read_text())
    assert trace["condition"] == condition and trace["catalog"] == 250 and trace["trace_version"] == 2
    if condition == "ORACLE":
        assert trace["passed"] is True


def test_sr_episode_unknown_task_and_condition_are_clean_errors() -> None:
    runner = CliRunner()
    bad_task = runner.invoke(app, ["--project-dir", str(ROOT), "episode", "NOPE-1"])
    assert bad_task.exit_code == 1 and "unknown task 'NOPE-1'" in bad_task.output
    assert "Traceback" not in bad_task.output
    bad_condition = runner.invoke(
        app, ["--project-dir", str(ROOT), "episode", "S1-en-01", "--condition", "X"]
    )
    assert bad_condition.exit_code == 1 and "unknown condition 'X'" in bad_condition.output
