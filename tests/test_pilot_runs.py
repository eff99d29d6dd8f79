"""Pilots: `sr run --surface dev` / `--surface-file`, `sr episode --surface dev`, `sr surface recall
--surface dev` and `sr score` on a pilot. Every pilot prints PILOT, marks report.md, report.json and the
manifest, and leaves every lock byte for byte as it was. Every project here is a temporary copy."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from test_dev_surface import EXAMPLE, experiments_copy
from typer.testing import CliRunner

from runtime.core.errors import SchemaRouterError
from runtime.report.golden import golden_payloads
from runtime.scoring import report_json
from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

PILOT = "PILOT: surface"


def _sr(root: Path, *args: str):
    return CliRunner().invoke(app, ["--project-dir", str(root), *args], terminal_width=200)


def _locks(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / "spec").rglob("freeze.lock")}


def _only_run(root: Path) -> Path:
    (run,) = [p for p in (root / "runs").iterdir() if (p / "manifest.json").is_file()]
    return run


@pytest.fixture()
def frozen(tmp_path):
    return experiments_copy(tmp_path)


def test_dev_pilot_prints_pilot_marks_everything_and_leaves_the_lock_unchanged(frozen):
    before = _locks(frozen)
    assert before, "the copy holds the experiment's lock"
    result = _sr(
        frozen, "run", "--surface", "dev", "--conditions", "SR-5-STATE-AWARE", "--catalogs", "100",
        "--tasks", "en", "--workers", "1", "--no-plots",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.count(PILOT) >= 2
    assert _locks(frozen) == before
    run = _only_run(frozen)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["surface"]["name"] == "dev" and manifest["surface"]["tasks"] == 180
    assert manifest["surface"]["path"] == "catalogs/_surfaces/dev/0.14/surface.jsonl"
    assert manifest["scope"]["preregistered"] is False
    report = json.loads((run / "report.json").read_text())
    assert report["pilot"]["mark"] == "PILOT" and report["pilot"]["surface"] == "dev"
    schema = json.loads(Path(report_json.__file__).with_name("report.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(report)
    assert (run / "report.md").read_text().startswith("# PILOT: ")
    with pytest.raises(SchemaRouterError, match="PILOT"):
        golden_payloads(report)

    scored = _sr(frozen, "score", str(run), "--no-plots")
    assert scored.exit_code == 0, scored.output
    assert PILOT in scored.output
    assert _locks(frozen) == before
    status = _sr(frozen, "status", str(run))
    assert PILOT in status.output


def test_a_pilot_runs_on_a_draft_without_draft_and_writes_no_lock(frozen):
    (frozen / "spec" / "0.14" / "freeze.lock").unlink()
    result = _sr(
        frozen, "run", "--surface", "dev", "--conditions", "ORACLE", "--catalogs", "100", "--tasks", "S1",
        "--workers", "1", "--no-plots",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert PILOT in result.output
    assert not _locks(frozen)
    report = json.loads((_only_run(frozen) / "report.json").read_text())
    assert report["pilot"]["draft"] is True and report["freeze_root_hash"] is None


def test_a_surface_generated_from_an_intents_file_runs_end_to_end(frozen, tmp_path):
    out = tmp_path / "example-surface"
    generated = _sr(
        frozen, "surface", "generate", "--intents", str(EXAMPLE / "intents.yaml"),
        "--pools", str(EXAMPLE / "pools.yaml"), "--seed", "5", "--tag", "ex", "--out", str(out),
    )  # fmt: skip
    assert generated.exit_code == 0, generated.output
    before = _locks(frozen)
    result = _sr(
        frozen, "run", "--surface-file", str(out / "surface.jsonl"), "--conditions", "ORACLE,FULL",
        "--catalogs", "100", "--workers", "1", "--no-plots",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "PILOT: surface file" in result.output
    assert _locks(frozen) == before
    run = _only_run(frozen)
    report = json.loads((run / "report.json").read_text())
    assert report["pilot"]["surface"] == "file" and report["scope"]["tasks"] == 180
    # The gold plans are sound: the oracle and the full catalog pass every task of the new surface.
    for condition in ("ORACLE", "FULL"):
        assert report["metrics"][condition]["100"]["task_pass"]["point"] == 1, condition
    rows = [json.loads(line) for line in (run / "per_task.jsonl").read_text().splitlines()]
    assert {r["task_id"].split("-")[2] for r in rows} == {"ex"}


def test_episode_and_recall_on_the_dev_surface_print_pilot(frozen):
    episode = _sr(frozen, "episode", "S4-ja-dev-01", "--surface", "dev", "--condition", "SR-5-STATE-AWARE")
    assert episode.exit_code == 0, episode.output
    assert PILOT in episode.output and "S4-ja-dev-01" in episode.output
    recall = _sr(frozen, "surface", "recall", "--surface", "dev", "--catalogs", "100", "--no-cells")
    assert recall.exit_code == 0, recall.output
    assert PILOT in recall.output


def test_an_unknown_surface_and_a_changed_pilot_file_are_refused(frozen, tmp_path):
    unknown = _sr(frozen, "run", "--surface", "nope", "--catalogs", "100")
    assert unknown.exit_code == 1 and "surfaces: evaluation, dev" in unknown.output
    both = _sr(frozen, "run", "--surface", "dev", "--surface-file", str(tmp_path), "--catalogs", "100")
    assert both.exit_code == 1 and "not both" in both.output


def test_surface_stats_and_bench_retrieval_take_the_dev_surface(frozen):
    stats = _sr(frozen, "surface", "stats", "--surface", "dev")
    assert stats.exit_code == 0, stats.output
    assert PILOT in stats.output and "180" in stats.output
    bench = _sr(
        frozen, "bench", "retrieval", "--surface", "dev", "--synthetic", "600", "--repeats", "1",
        "--no-bm25s", "--no-strategies",  # the strategy study (and its dense extra): test_strategy_study.py
    )  # fmt: skip
    assert bench.exit_code == 0, bench.output
    assert PILOT in bench.output
