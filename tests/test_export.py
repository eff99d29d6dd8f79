"""`sr export RUN_DIR --format inspect|parquet|csv` on a real (small, pilot) run: the tables read back
equal to what scoring wrote and to the traces, and inspect_ai's own reader loads the logs."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from extras import require_module
from test_dev_surface import experiments_copy
from typer.testing import CliRunner

from schemarouter.application.export_arrow import read_csv_rows
from schemarouter.application.export_tables import DECISION_COLUMNS, load_run_tables
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pa = require_module("pyarrow", extra="export")
pq = require_module("pyarrow.parquet", extra="export")


def sr(root: Path, *args: str):
    return CliRunner().invoke(app, ["--project-dir", str(root), *args], terminal_width=200)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, Path]:
    """A pilot run of one stratum on the dev surface, a ranking condition and FULL, at catalog 100."""
    root = experiments_copy(tmp_path_factory.mktemp("export"))
    run_dir = root / "runs" / "pilot"
    result = sr(
        root, "run", "--surface", "dev", "--conditions", "SR-5-STATE-AWARE,FULL", "--catalogs", "100",
        "--tasks", "S1", "--workers", "1", "--no-plots", "--run-dir", str(run_dir),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return root, run_dir


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_parquet_and_csv_read_back_equal_to_the_per_task_and_decision_point_tables(run, tmp_path):
    root, run_dir = run
    out = tmp_path / "out"
    result = sr(root, "export", str(run_dir), "--format", "parquet,csv", "--out", str(out))
    assert result.exit_code == 0, result.output
    per_task = _jsonl(run_dir / "per_task.jsonl")
    assert per_task and f"exported {len(per_task)} per-task rows" in result.output
    assert pq.read_table(out / "per_task.parquet").to_pylist() == per_task
    tables = load_run_tables(ProjectPaths.at(root), run_dir)
    points = pq.read_table(out / "decision_points.parquet").to_pylist()
    assert points == tables.decision_points and len(points) > len(per_task)
    assert read_csv_rows((out / "per_task.csv").read_bytes(), tables.per_task_columns) == per_task
    assert read_csv_rows((out / "decision_points.csv").read_bytes(), DECISION_COLUMNS) == points
    with (out / "per_task.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(per_task) and rows[0]["task_id"] == per_task[0]["task_id"]


def test_the_decision_points_are_the_recall_metric_s_own(run):
    root, run_dir = run
    tables = load_run_tables(ProjectPaths.at(root), run_dir)
    for row in tables.per_task:
        mine = [
            p
            for p in tables.decision_points
            if (p["task_id"], p["condition"], p["catalog"])
            == (row["task_id"], row["condition"], row["catalog"])
        ]
        assert [p["turn"] for p in mine] == list(range(1, row["model_turns"] + 1))
        if row["condition"] == "FULL":  # no ranking: Recall@5 does not apply
            assert row["recall_decision_points"] is None
            assert not any(p["recall_decision_point"] for p in mine)
            assert all(p["ranking_top5"] is None for p in mine)
            continue
        assert sum(p["recall_decision_point"] for p in mine) == row["recall_decision_points"]
        assert sum(bool(p["needed_in_top5"]) for p in mine) == row["recall_hits"]


def test_an_export_is_byte_identical(run, tmp_path):
    root, run_dir = run
    for out in ("a", "b"):
        assert (
            sr(
                root, "export", str(run_dir), "--format", "parquet,csv", "--out", str(tmp_path / out)
            ).exit_code
            == 0
        )
    for name in ("per_task.parquet", "decision_points.parquet", "per_task.csv", "decision_points.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_inspect_logs_load_through_inspect_ai(run, tmp_path):
    log_api = require_module("inspect_ai.log", extra="bench")
    root, run_dir = run
    out = tmp_path / "out"
    result = sr(root, "export", str(run_dir), "--format", "inspect", "--out", str(out))
    assert result.exit_code == 0, result.output
    per_task = _jsonl(run_dir / "per_task.jsonl")
    files = sorted((out / "inspect").glob("*.eval"))
    assert [f.name for f in files] == ["pilot_FULL_100.eval", "pilot_SR-5-STATE-AWARE_100.eval"]
    for file in files:
        log = log_api.read_eval_log(str(file))
        condition = log.eval.metadata["condition"]
        rows = {r["task_id"]: r for r in per_task if r["condition"] == condition}
        assert log.status == "success" and log.eval.task == f"schemarouter/0.14/{condition}"
        assert sorted(s.id for s in log.samples) == sorted(rows)
        for sample in log.samples:
            score = sample.scores["schemarouter"]
            assert score.value["task_pass"] == rows[sample.id]["task_pass"]
            assert sample.messages[0].role == "user" and sample.input == sample.messages[0].content
        passed = log.results.scores[0].metrics["task_pass"].value
        assert passed == pytest.approx(sum(r["task_pass"] for r in rows.values()) / len(rows))


def test_what_cannot_be_exported_is_one_line(run, tmp_path):
    root, run_dir = run
    bad = sr(root, "export", str(run_dir), "--format", "xlsx")
    assert (
        bad.exit_code == 1 and bad.output == "--format xlsx: expected one or more of csv, inspect, parquet\n"
    )
    nothing = sr(root, "export", str(tmp_path), "--format", "csv")
    assert (
        nothing.exit_code == 1 and nothing.output == f"{tmp_path}: not a run directory (no manifest.json)\n"
    )
    unscored = tmp_path / "unscored"
    shutil.copytree(run_dir, unscored, ignore=shutil.ignore_patterns("per_task.jsonl", "export"))
    refused = sr(root, "export", str(unscored), "--format", "csv")
    assert refused.exit_code == 1
    assert refused.output == f"{unscored}: not scored yet (no per_task.jsonl); run `sr score {unscored}`\n"
    assert not (unscored / "export").exists()


def test_per_task_csv_nulls_are_empty_fields(run, tmp_path):
    root, run_dir = run
    out = tmp_path / "out"
    assert sr(root, "export", str(run_dir), "--format", "csv", "--out", str(out)).exit_code == 0
    reader = csv.DictReader(io.StringIO((out / "per_task.csv").read_text(encoding="utf-8")))
    full = next(r for r in reader if r["condition"] == "FULL")
    assert full["next_tool_recall_at_5"] == "" and full["task_pass"] in ("0", "1")


def _readme_example() -> str:
    """The README's export query, the python block after its ``<!-- export-example -->`` marker."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    after = text.split("<!-- export-example -->", 1)[1]
    return after.split("```python\n", 1)[1].split("\n```", 1)[0]


def test_the_readme_s_example_query_runs_over_the_exported_parquet_files(run, monkeypatch, capsys):
    require_module("pyarrow.dataset", extra="export")
    root, run_dir = run
    assert run_dir == root / "runs" / "pilot"
    result = sr(root, "export", str(run_dir), "--format", "parquet", "--out", str(run_dir / "export"))
    assert result.exit_code == 0, result.output
    monkeypatch.chdir(root)
    namespace: dict = {}
    exec(compile(_readme_example(), "README.md:export-example", "exec"), namespace)
    per_task = _jsonl(run_dir / "per_task.jsonl")
    arms = namespace["by_arm"].to_pylist()
    assert [(a["condition"], a["catalog"]) for a in arms] == [("FULL", 100), ("SR-5-STATE-AWARE", 100)]
    for arm in arms:
        rows = [r for r in per_task if r["condition"] == arm["condition"]]
        assert arm["task_pass_count"] == len(rows)
        assert arm["task_pass_mean"] == pytest.approx(sum(r["task_pass"] for r in rows) / len(rows))
    assert {r["condition"] for r in namespace["next_tool"].to_pylist()} <= {"FULL", "SR-5-STATE-AWARE"}
    print(capsys.readouterr().out)
