"""A draft's run on the evaluation surface is recorded in spec/peeks.yaml ("evaluation outcomes seen
before freeze") with its run id, frozen with the experiment, and shown by reports and `sr experiments`.
Pilots are never recorded there. Every project here is a temporary copy."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from run_support import copy_project
from test_dev_surface import experiments_copy
from typer.testing import CliRunner

from compiler.peeks import KEY, read_peeks
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)


def _sr(root: Path, *args: str):
    return CliRunner().invoke(app, ["--project-dir", str(root), *args], terminal_width=200)


def _runs(root: Path) -> list[Path]:
    return sorted(p for p in (root / "runs").iterdir() if (p / "manifest.json").is_file())


SMALL = ("--conditions", "ORACLE", "--catalogs", "100", "--tasks", "S1", "--workers", "1", "--no-plots")


def test_a_draft_evaluation_run_is_recorded_frozen_and_reported(tmp_path):
    paths = copy_project(tmp_path)  # a flat draft: no freeze.lock
    root = paths.root
    draft = _sr(root, "run", "--draft", *SMALL)
    assert draft.exit_code == 0, draft.output
    (run,) = _runs(root)
    assert "evaluation outcomes seen before freeze" in draft.output and run.name in draft.output
    peeks = read_peeks(paths)
    assert [p["run_id"] for p in peeks] == [run.name]
    assert peeks[0]["conditions"] == ["ORACLE"] and peeks[0]["tasks"] == 36
    assert (root / "spec" / "schema" / "peeks.schema.json").is_file()
    assert _sr(root, "validate").exit_code == 0

    listed = _sr(root, "experiments")
    assert "evaluation outcomes seen before freeze: 1 run(s)" in listed.output and run.name in listed.output

    frozen = _sr(root, "freeze", "--reason", "after a peek")
    assert frozen.exit_code == 0, frozen.output
    lock = json.loads((root / "spec" / "freeze.lock").read_text())
    assert "spec/peeks.yaml" in json.dumps(lock)

    scored = _sr(root, "run", *SMALL)
    assert scored.exit_code == 0, scored.output
    assert "Evaluation outcomes seen before freeze: 1 run(s)" in scored.output
    # The run the command names: the freeze's own preflight pilot also made a run directory, and two
    # made in the same second sort by their hash, not by time.
    newest = Path(re.search(r"report: (\S+?)/report\.md", scored.output.replace("\n", "")).group(1))
    report_md = (newest / "report.md").read_text()
    assert "Evaluation outcomes seen before freeze: 1 run(s)" in report_md and run.name in report_md
    assert json.loads((newest / "report.json").read_text())["evaluation_outcomes_seen_before_freeze"] == [
        run.name
    ]


def test_a_second_draft_run_appends_and_a_pilot_is_never_a_peek(tmp_path):
    root = experiments_copy(tmp_path)
    (root / "spec" / "0.14" / "freeze.lock").unlink()
    paths = ProjectPaths.at(root, experiment="0.14")
    assert _sr(root, "run", "--surface", "dev", *SMALL).exit_code == 0
    assert read_peeks(paths) == []
    assert not (root / "spec" / "0.14" / "peeks.yaml").exists()
    for _ in range(2):
        assert _sr(root, "run", "--draft", *SMALL).exit_code == 0
    peeks = read_peeks(paths)
    assert len(peeks) == 2 and len({p["run_id"] for p in peeks}) == 2
    text = (root / "spec" / "0.14" / "peeks.yaml").read_text()
    assert text.startswith("# Written by `sr run`") and f"{KEY}:" in text


def test_a_draft_successor_pilots_on_a_fresh_dev_surface_and_its_peek_is_no_deviation(tmp_path):
    root = experiments_copy(tmp_path)
    made = _sr(root, "experiment", "new", "0.15", "--from", "0.14", "--reason", "try a pilot")
    assert made.exit_code == 0, made.output
    before = (root / "spec" / "0.14" / "freeze.lock").read_bytes()
    pilot = _sr(root, "run", "--experiment", "0.15", "--surface", "dev", *SMALL)
    assert pilot.exit_code == 0, pilot.output
    assert "PILOT: surface dev" in pilot.output
    # No dev surface is committed for 0.15: it is generated against 0.15's own catalogs under build/.
    assert (root / "build" / "_surfaces" / "dev" / "0.15" / "surface.jsonl").is_file()
    assert not (root / "catalogs" / "_surfaces" / "dev" / "0.15").exists()
    assert _sr(root, "run", "--experiment", "0.15", "--draft", *SMALL).exit_code == 0
    paths = ProjectPaths.at(root, experiment="0.15")
    assert len(read_peeks(paths)) == 1
    deviations = _sr(root, "deviations", "--experiment", "0.15")
    assert "peeks" not in deviations.output, deviations.output
    assert (root / "spec" / "0.14" / "freeze.lock").read_bytes() == before
    assert not (root / "spec" / "0.14" / "peeks.yaml").exists()
