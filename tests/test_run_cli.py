"""The run commands end to end on a frozen copy of the project, with the fake engine and surface:
verdict output, draft and freeze-hash refusals, sealed partial sets, shard merging, determinism."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from run_fake_engine import FakeEngine, fake_tasks
from run_support import copy_project, frozen_project
from typer.testing import CliRunner

from compiler import compile_project
from runtime.report.golden import check_golden
from runtime.run import read_manifest
from runtime.spec_model import read_lock
from schemarouter.application import reference_run as reference_app
from schemarouter.application import run as run_app
from schemarouter.application.reference_run import GoldenRequest
from schemarouter.application.run import RunDeps, RunRequest, run_experiment
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

OUTCOME_WORDS = re.compile(r"PASS|FAIL|verdict|task_pass|recall|ci_low|\b0\.\d", re.IGNORECASE)


def fake_deps(**kwargs: object) -> RunDeps:
    """The fake engine and surface for direct calls of the application layer."""
    return RunDeps(engine=FakeEngine(), task_source=lambda paths: fake_tasks(), **kwargs)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def fake_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `sr ...` commands below run through the CLI, which builds its own dependencies: the default
    engine and surface of the application layer are replaced by the fakes."""
    monkeypatch.setattr(run_app, "EngineAdapter", FakeEngine)
    monkeypatch.setattr(run_app, "surface_tasks", lambda paths: fake_tasks())


def sr(paths: ProjectPaths, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["--project-dir", str(paths.root), *map(str, args)], env={"COLUMNS": "160"}
    )
    return result.exit_code, result.output


def _run_dirs(paths: ProjectPaths) -> list[Path]:
    if not paths.runs_dir.is_dir():
        return []
    return sorted(p for p in paths.runs_dir.iterdir() if (p / "manifest.json").is_file())


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> ProjectPaths:
    """One frozen copy shared by the tests that only add run directories to it."""
    return frozen_project(tmp_path_factory.mktemp("shared"))


@pytest.fixture(scope="module")
def full_runs(project: ProjectPaths) -> dict[str, object]:
    """Two unsharded full runs (1 and 2 workers) and four shard directories."""
    paths = project
    first = run_experiment(paths, RunRequest(workers=1, plots=False), fake_deps())
    second = run_experiment(paths, RunRequest(workers=2, plots=True), fake_deps())
    compiled = compile_project(paths)  # compiled once for the four shard runs
    shards = [
        run_experiment(paths, RunRequest(shard=f"{k}/4", workers=2), fake_deps(compiled=compiled)).run_dir
        for k in (1, 2, 3, 4)
    ]
    return {"paths": paths, "first": first.run_dir, "second": second.run_dir, "shards": shards}


def test_two_full_runs_are_byte_identical_latency_aside(full_runs: dict) -> None:
    a, b = full_runs["first"], full_runs["second"]
    assert a != b
    for name in ("report.json", "per_task.jsonl"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
    assert "wall_latency" not in (a / "per_task.jsonl").read_text()
    assert "wall_latency_ms" in (a / "per_task_latency.jsonl").read_text()


def test_full_run_writes_every_output_and_records_scoring_in_the_lock(full_runs: dict) -> None:
    run_dir, paths = full_runs["second"], full_runs["paths"]
    for name in (
        "manifest.json",
        "report.json",
        "per_task.jsonl",
        "report.md",
        "latency.json",
        "scoring.json",
    ):
        assert (run_dir / name).is_file(), name
    for png in ("gate_forest.png", "recall_heatmap.png", "tokens_vs_pass.png"):
        assert (run_dir / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len((run_dir / "per_task.jsonl").read_text().splitlines()) == 2700
    started = read_lock(paths.lock_file).scoring_started
    assert started is not None and started.run_id == full_runs["first"].name  # the first scored run stays


def test_scoring_three_of_four_shards_is_sealed_and_shows_no_metric(full_runs: dict, tmp_path: Path) -> None:
    out = tmp_path / "merged3"
    code, output = sr(full_runs["paths"], "score", *full_runs["shards"][:3], "--out", out)
    assert code == 1
    assert (
        "sealed" in output
        and "2025 / 2700" in output
        and "shards present: 1/4, 2/4, 3/4; missing: 4/4" in output
    )
    assert not OUTCOME_WORDS.search(output), output
    assert not out.exists()


def test_all_four_shards_give_exactly_the_unsharded_result(full_runs: dict, tmp_path: Path) -> None:
    out = tmp_path / "merged4"
    code, output = sr(full_runs["paths"], "score", *reversed(full_runs["shards"]), "--out", out, "--no-plots")
    assert code == 0, output
    assert "Gate verdict" in output
    for name in ("report.json", "per_task.jsonl"):
        assert (out / name).read_bytes() == (full_runs["first"] / name).read_bytes()


def test_a_shard_run_is_not_scored_by_itself(full_runs: dict) -> None:
    for shard_dir in full_runs["shards"]:
        assert not (shard_dir / "report.json").exists()
        assert read_manifest(shard_dir).episodes == 675


def test_status_shows_progress_and_never_an_outcome(full_runs: dict) -> None:
    code, output = sr(full_runs["paths"], "status", full_runs["shards"][0])
    assert code == 0
    assert (
        "675" in output
        and "shards present: 1/4; missing: 2/4, 3/4, 4/4" in output
        and "terminal: no" in output
    )
    assert not OUTCOME_WORDS.search(output.replace(full_runs["shards"][0].name, "")), output


def test_sr_run_prints_the_verdict_and_criteria_table(project: ProjectPaths, tmp_path: Path) -> None:
    run = ("run", "--run-dir", tmp_path / "run")
    code, output = sr(project, *run, "--tasks", "S1,en", "--catalogs", "100", "--workers", "1", "--no-plots")
    assert code == 0, output
    assert "Gate verdict:" in output and "sub-scope" in output
    for column in ("code", "metric", "statistic", "value", "95% CI", "threshold", "passed"):
        assert column in output
    assert all(f"G{i}" in output for i in range(1, 7))


def test_draft_runs_are_refused_unless_asked_for_and_never_scored(tmp_path: Path) -> None:
    paths = copy_project(tmp_path)
    code, output = sr(paths, "run", "--tasks", "S1,en", "--catalogs", "100")
    assert code == 1 and "draft" in output and not paths.runs_dir.exists()
    code, output = sr(paths, "run", "--tasks", "S1,en", "--catalogs", "100", "--draft", "--workers", "1")
    assert code == 0 and "never scored" in output
    (run_dir,) = _run_dirs(paths)
    code, output = sr(paths, "score", run_dir)
    assert code == 1 and "draft" in output
    assert not (run_dir / "report.json").exists()


def test_scoring_refuses_a_freeze_hash_other_than_the_current_lock(tmp_path: Path) -> None:
    from compiler import freeze_project

    paths = frozen_project(tmp_path)
    compiled = compile_project(paths)
    for k in (1, 2):
        run_experiment(
            paths,
            RunRequest(tasks="S1,en", catalogs="100", shard=f"{k}/2", workers=1),
            fake_deps(compiled=compiled),
        )
    dirs = _run_dirs(paths)
    gates = paths.spec_dir / "gates.yaml"
    gates.write_text(
        gates.read_text().replace("so the lower bound decides", "so the lower bound alone decides")
    )
    freeze_project(paths, reason="edit a rationale before any scoring")
    code, output = sr(paths, "score", *dirs)
    assert code == 1 and "freeze root hash mismatch" in output
    assert read_lock(paths.lock_file).scoring_started is None


def test_resume_with_run_dir_rejects_scope_options(project: ProjectPaths, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    code, _ = sr(project, "run", "--run-dir", run_dir, "--tasks", "S1,en", "--catalogs", "100", "--no-plots")
    assert code == 0
    code, output = sr(project, "run", "--resume", "--run-dir", run_dir, "--catalogs", "250")
    assert code == 1 and "drop --agent" in output
    code, output = sr(project, "run", "--resume", "--run-dir", run_dir, "--no-plots")
    assert code == 0 and "committed 0 this session (30 before)" in output


def test_report_json_follows_its_documented_schema(full_runs: dict) -> None:
    import json

    import jsonschema

    from runtime.scoring import report_json

    schema_path = Path(report_json.__file__).with_name("report.schema.json")
    schema = json.loads(schema_path.read_text())
    report = json.loads((full_runs["first"] / "report.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(report)
    assert (
        report["report_version"]
        == schema["properties"]["report_version"]["const"]
        == report_json.REPORT_VERSION
    )


def test_golden_update_then_check_and_hand_edits_are_caught(full_runs: dict, tmp_path: Path) -> None:
    import json

    paths = ProjectPaths.at(tmp_path)  # golden/ of a scratch project; the run is the module's full run
    assert reference_app.golden(paths, GoldenRequest(update=True, run_dir=full_runs["first"]))
    gate_file = paths.golden_dir / "gate.json"
    assert "generated by `sr golden --update`, do not edit" in gate_file.read_text()
    assert reference_app.golden(paths, GoldenRequest(update=False, run_dir=full_runs["second"]))

    data = json.loads(gate_file.read_text())
    data["gate"]["verdict"] = "PASS" if data["gate"]["verdict"] == "FAIL" else "FAIL"
    gate_file.write_text(json.dumps(data))
    code, output = sr(paths, "golden", "--check", "--run-dir", full_runs["first"])
    assert code == 1 and "edited by hand" in output

    from runtime.report.golden import HASH_KEY, content_hash

    points_file = paths.golden_dir / "metric_points.json"
    data = json.loads(points_file.read_text())
    data.pop(HASH_KEY)
    data["metrics"]["ORACLE"]["100"]["task_pass"] = 0.5
    data[HASH_KEY] = content_hash(data)
    points_file.write_text(json.dumps(data))
    code, output = sr(paths, "golden", "--check", "--run-dir", full_runs["first"])
    assert code == 1 and "$.metrics.ORACLE.100.task_pass: golden 0.5" in output


def test_sr_run_with_infrastructure_failures_is_not_terminal_until_resumed(
    project: ProjectPaths, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths, run_dir = project, tmp_path / "run"
    failing = frozenset({"S1-en-02 | SR-5-STATE-AWARE | 100", "S1-en-04 | FULL | 100"})
    monkeypatch.setattr(run_app, "EngineAdapter", lambda: FakeEngine(fail_keys=failing))
    code, output = sr(
        paths, "run", "--run-dir", run_dir, "--tasks", "S1,en", "--catalogs", "100", "--no-plots"
    )
    assert code == 1 and "not terminal" in output and "2 infrastructure events" in output
    assert not (run_dir / "report.json").exists()
    code, output = sr(paths, "status", run_dir)
    assert "S1-en-02 | SR-5-STATE-AWARE | 100" in output and "RuntimeError" in output
    code, output = sr(paths, "score", run_dir)
    assert code == 1 and "sealed" in output and "28 / 30" in output and not OUTCOME_WORDS.search(output)

    monkeypatch.setattr(run_app, "EngineAdapter", FakeEngine)
    code, output = sr(paths, "run", "--resume", "--run-dir", run_dir, "--no-plots")
    assert code == 0 and "committed 2 this session (28 before)" in output and "Gate verdict" in output
    code, output = sr(paths, "status", run_dir)
    assert "terminal: yes" in output and "resolved infrastructure events" in output


def test_bench_run_prints_timings_and_leaves_nothing_behind(project: ProjectPaths) -> None:
    paths = project
    lock_before, runs_before = paths.lock_file.read_bytes(), _run_dirs(paths)
    code, output = sr(paths, "bench", "run", "--workers", "2")
    assert code == 0, output
    assert "episodes/s" in output and "bootstrap + gate" in output and "2700 episodes" in output
    assert "s CPU (this process and its workers)" in output
    assert re.search(r"reference run: [0-9.]+ s wall \(target <= 5 s: (met|NOT met)\), [0-9.]+ s CPU", output)
    assert not OUTCOME_WORDS.search(output.replace("0.", "")), output
    assert list(paths.build_dir.glob("bench-run-*")) == []
    assert paths.lock_file.read_bytes() == lock_before and _run_dirs(paths) == runs_before


def test_sr_golden_runs_in_a_scratch_copy_and_never_records_scoring(
    project: ProjectPaths, full_runs: dict, tmp_path: Path
) -> None:
    import json

    paths = project
    lock_before, runs_before = paths.lock_file.read_bytes(), _run_dirs(paths)
    code, output = sr(paths, "golden", "--update")
    assert code == 0, output
    assert paths.lock_file.read_bytes() == lock_before and _run_dirs(paths) == runs_before
    assert list(paths.build_dir.glob("golden-run-*")) == []
    # The scratch run pins exactly what the project's own full run reports.
    report = json.loads((full_runs["first"] / "report.json").read_text())
    assert check_golden(paths.golden_dir, report) == []


def test_after_the_first_scoring_freeze_refuses_a_state_contract_change(
    project: ProjectPaths, full_runs: dict
) -> None:
    from compiler import freeze_project
    from runtime.core.errors import SchemaRouterError

    assert read_lock(project.lock_file).scoring_started is not None
    contract = project.spec_dir / "state_contract.yaml"
    original = contract.read_text()
    lock_before = project.lock_file.read_bytes()
    try:
        contract.write_text(original.replace("version: 1", "version: 2", 1))
        with pytest.raises(SchemaRouterError, match="scor"):
            freeze_project(project, reason="add a state field after scoring")
        assert project.lock_file.read_bytes() == lock_before
    finally:
        contract.write_text(original)
