"""`sr export RUN_DIR --format inspect|parquet|csv` on a real (small, pilot) run: the tables read back
equal to what scoring wrote and to the traces, and inspect_ai's own reader loads the logs."""

from __future__ import annotations

import csv
import io
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path

import pytest
from extras import require_executable, require_module
from test_dev_surface import experiments_copy
from typer.testing import CliRunner

from schemarouter.application.export_arrow import read_csv_rows
from schemarouter.application.export_tables import DECISION_COLUMNS, load_run_tables
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pa = require_module("pyarrow", extra="export")
pq = require_module("pyarrow.parquet", extra="export")
ARTIFACTS = Path(__file__).resolve().parents[1] / "build" / "test-artifacts"


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


@pytest.fixture(scope="module")
def inspect_logs(run, tmp_path_factory) -> Path:
    """The run exported as inspect logs (the directory holding the .eval files)."""
    require_module("inspect_ai.log", extra="bench")
    root, run_dir = run
    out = tmp_path_factory.mktemp("inspect-export")
    result = sr(root, "export", str(run_dir), "--format", "inspect", "--out", str(out))
    assert result.exit_code == 0, result.output
    return out / "inspect"


def test_an_inspect_export_is_byte_identical_and_stamped_at_the_run_s_creation(run, inspect_logs, tmp_path):
    import zipfile

    from runtime.run.manifest import read_manifest

    root, run_dir = run
    result = sr(root, "export", str(run_dir), "--format", "inspect", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    first = sorted(inspect_logs.glob("*.eval"))
    again = sorted((tmp_path / "inspect").glob("*.eval"))
    assert [p.name for p in first] == [p.name for p in again] and first
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(first, again, strict=True))
    created = read_manifest(run_dir).created_at.astimezone(UTC).timetuple()[:5]
    with zipfile.ZipFile(first[0]) as archive:
        assert {info.date_time[:5] for info in archive.infolist()} == {created}


def test_inspect_logs_load_through_inspect_ai(run, inspect_logs):
    log_api = require_module("inspect_ai.log", extra="bench")
    _, run_dir = run
    per_task = _jsonl(run_dir / "per_task.jsonl")
    report = json.loads((run_dir / "report.json").read_text())
    files = sorted(inspect_logs.glob("*.eval"))
    assert [f.name for f in files] == ["pilot_FULL_100.eval", "pilot_SR-5-STATE-AWARE_100.eval"]
    for file in files:
        log = log_api.read_eval_log(str(file))
        condition = log.eval.metadata["condition"]
        rows = {r["task_id"]: r for r in per_task if r["condition"] == condition}
        assert log.status == "success" and log.eval.task == f"schemarouter/0.14/{condition}/catalog-100"
        assert sorted(s.id for s in log.samples) == sorted(rows)
        for sample in log.samples:
            assert next(iter(sample.scores)) == "task_pass"  # the primary score first
            assert sample.scores["task_pass"].value == rows[sample.id]["task_pass"]
            assert sample.scores["schemarouter"].value["model_turns"] == rows[sample.id]["model_turns"]
            assert sample.messages[0].role == "user" and sample.input == sample.messages[0].content
        first = log.results.scores[0]  # inspect view's SCORE column: the first metric of the first score
        assert (first.name, list(first.metrics)) == ("task_pass", ["mean"])
        assert first.metrics["mean"].value == report["metrics"][condition]["100"]["task_pass"]["point"]
        assert first.metrics["mean"].value == pytest.approx(
            sum(r["task_pass"] for r in rows.values()) / len(rows)
        )
        recall = report["metrics"][condition]["100"].get("next_tool_recall_at_5", {}).get("point")
        if recall is not None:  # a ratio metric reads as report.json's ratio of sums
            assert log.results.scores[1].metrics["next_tool_recall_at_5"].value == recall


def test_inspect_samples_carry_the_episode_s_events(run, inspect_logs):
    log_api = require_module("inspect_ai.log", extra="bench")
    root, run_dir = run
    tables = load_run_tables(ProjectPaths.at(root), run_dir)
    traces = {(e.trace.task_id, e.trace.condition): e.trace for e in tables.episodes}
    file = inspect_logs / "pilot_SR-5-STATE-AWARE_100.eval"
    log = log_api.read_eval_log(str(file), resolve_attachments=True)
    print(f"\n{log.eval.task}: first score {log.results.scores[0].name} = "
          f"{log.results.scores[0].metrics['mean'].value}")  # fmt: skip
    shown = False
    for sample in log.samples:
        trace = traces[(sample.id, "SR-5-STATE-AWARE")]
        kinds = [e.event for e in sample.events]
        models = [e for e in sample.events if e.event == "model"]
        tools = [e for e in sample.events if e.event == "tool"]
        retrievals = [e for e in sample.events if e.event == "info" and e.source == "retrieval"]
        assert len(models) == len(trace.turns) and kinds[-1] == "info"
        for event, turn in zip(models, trace.turns, strict=True):
            exposed = trace.exposed_route_ids(turn)
            assert event.metadata["exposed_route_ids"] == exposed
            assert len(event.tools) == len(exposed) and all(t.description for t in event.tools)
        attempts = [t for t in trace.turns if t.audit is not None]
        assert [e.function for e in tools] == [t.decision.tool_name for t in attempts]
        for event, turn in zip(tools, attempts, strict=True):
            assert event.metadata["gate"] == turn.audit
            blocked = turn.result is not None and turn.result.status == "blocked"
            assert (event.error is not None and event.error.type == "permission") == blocked
        calls = [c for t in trace.turns for c in t.retrieval_calls]
        assert len(retrievals) == len(calls) and calls
        for event, call in zip(retrievals, calls, strict=True):
            assert event.data["text_sent"] == call["text"] and "latency_us" not in event.data
            assert [r["route_id"] for r in event.data["ranking"]] == call["route_ids"]
            assert event.data["state"] is None if call["query_kind"] == "original" else event.data["state"]
        if not shown and any(e.error is not None for e in tools):
            shown = True
            for e in sample.events[:4]:
                print(_event_line(e))
    assert shown


def _event_line(event) -> str:
    if event.event == "model":
        called = event.output.message.tool_calls[0].function
        return f"  model: tools {[t.name for t in event.tools]} -> {called}"
    if event.event == "tool":
        gate = event.metadata["gate"]
        return f"  tool: {event.function} gate {gate['decision']} {gate['reason']} error {event.error}"
    top = [r["route_id"] for r in event.data["ranking"]]
    state = event.data["state"] is not None
    return f"  info ({event.source}): {event.data['query_kind']} state={state} top {top}"


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


@pytest.fixture
def inspect_view(inspect_logs) -> Iterator[str]:
    """``inspect view`` serving the exported logs on a free loopback port (it fetches nothing from the
    network: its pages and scripts ship inside the inspect_ai package); its base URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [str(Path(sys.executable).parent / "inspect"), "view", "--log-dir", str(inspect_logs)]
    server = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(600):  # readiness, not speed: up to a minute on a loaded machine
            if server.poll() is not None:
                pytest.fail(f"inspect view exited: {server.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("inspect view did not answer")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_inspect_view_shows_task_pass_and_the_transcript(inspect_view, run):
    sync_api = require_module("playwright.sync_api", extra="report")
    chromium = require_executable("chromium", apt="chromium")
    _, run_dir = run
    report = json.loads((run_dir / "report.json").read_text())
    failed: list[str] = []
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
            page.on("request", lambda r: None if r.url.startswith(inspect_view) else errors.append(r.url))
            page.goto(inspect_view)
            task = "schemarouter/0.14/SR-5-STATE-AWARE/catalog-100"
            page.get_by_text(task, exact=True).wait_for()
            expected = report["metrics"]["SR-5-STATE-AWARE"]["100"]["task_pass"]["point"]
            row = page.locator("[role=row]", has_text=task).first
            row.filter(has_text="schemarouter/reference").wait_for()  # the list fills in its columns late
            row.get_by_text(f"{expected:.3f}", exact=True).wait_for()  # the SCORE column: task_pass
            page.get_by_text(task, exact=True).click()
            page.get_by_text("S1-en-", exact=False).first.click()
            page.get_by_text("INFO: RETRIEVAL").first.wait_for()
            body = page.inner_text("body")
            for label in ("TRANSCRIPT", "INFO: RETRIEVAL", "MODEL CALL: SCHEMAROUTER/REFERENCE", "TOOL:"):
                assert label in body, label
            assert '"query_kind": "original"' in body and '"ranking"' in body
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "inspect_view_transcript.png"))
        finally:
            browser.close()
    assert errors == []
    # inspect view asks for an optional flow file (/api/flow) that an export has no use for: a 404
    assert [f for f in failed if "/api/flow" not in f] == []


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
