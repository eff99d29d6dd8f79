"""Behavioural deviations (issue #24, item 4): `sr deviations` compares the canary episodes of a
successor and its parent per condition; a moved condition other than the gate's treatment is a
protocol deviation, and `--update` removes entries that no longer exist."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from schemarouter.application.behaviour import behavioural_differences
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


def test_0_15s_demotion_moves_both_static_conditions_as_protocol_deviations() -> None:
    found = behavioural_differences(ProjectPaths.at(REPO, experiment="0.15"))
    by_condition = {d.detail.split()[1]: d for d in found}
    assert {"SR-5-STATIC", "SR-PROGRESSIVE-STATIC"} <= set(by_condition)
    assert by_condition["SR-5-STATIC"].kind == by_condition["SR-PROGRESSIVE-STATIC"].kind == "protocol"
    assert by_condition["SR-5-STATE-AWARE"].kind == "spec"  # the treatment: the change is for it
    assert "FULL" not in by_condition and "ORACLE" not in by_condition  # they do not rank: unmoved
    assert all(d.change.startswith("behaviour: condition ") for d in found)


def test_the_committed_log_declares_them(tmp_path: Path) -> None:
    result = runner.invoke(app, ["--project-dir", str(REPO), "deviations", "--experiment", "0.15"])
    assert result.exit_code == 0, result.output
    assert "MISSING" not in result.output and "STALE" not in result.output
    protocol = result.output.split("protocol changes", 1)[1].split(" spec changes", 1)[0]
    assert "behaviour: condition SR-5-STATIC (not the treatment)" in protocol
    assert "behaviour: condition SR-PROGRESSIVE-STATIC (not the treatment)" in protocol


def _two_experiments(tmp_path: Path) -> Path:
    """A project copy with 0.14 as recorded, the 0.15 draft and the development surfaces."""
    root = tmp_path / "project"
    root.mkdir()
    shutil.copyfile(REPO / "schemarouter.yaml", root / "schemarouter.yaml")
    for rel in (
        "spec/0.14",
        "spec/0.15",
        "spec/_surfaces",
        "catalogs/0.14",
        "catalogs/0.15",
        "catalogs/_surfaces",
    ):
        shutil.copytree(REPO / rel, root / rel, ignore=shutil.ignore_patterns(".*"))
    return root


def test_update_removes_entries_that_no_longer_exist(tmp_path: Path) -> None:
    root = _two_experiments(tmp_path)
    log = root / "spec/0.15/deviations.yaml"
    data = yaml.safe_load(log.read_text(encoding="utf-8"))
    gone = [
        {
            "change": "spec/retriever.yaml: retriever.depth.progressive: 30 -> 40",
            "kind": "spec",
            "rationale": "old",
        },
        {
            "change": "behaviour: condition FULL (not the treatment): 1 of 15 canary episodes",
            "rationale": "old",
        },
    ]
    log.write_text(
        yaml.safe_dump({"deviations": data["deviations"] + gone}, sort_keys=False), encoding="utf-8"
    )
    result = runner.invoke(app, ["--project-dir", str(root), "deviations", "-e", "0.15"])
    assert result.exit_code == 1 and result.output.count("STALE") == 2
    result = runner.invoke(app, ["--project-dir", str(root), "deviations", "-e", "0.15", "--update"])
    assert result.exit_code == 0, result.output
    kept = yaml.safe_load(log.read_text(encoding="utf-8"))["deviations"]
    assert [e["change"] for e in kept] == [e["change"] for e in data["deviations"]]
    assert [e["rationale"] for e in kept] == [e["rationale"] for e in data["deviations"]]


def test_freeze_refuses_an_undeclared_behavioural_deviation_and_writes_nothing(tmp_path: Path) -> None:
    root = _two_experiments(tmp_path)
    log = root / "spec/0.15/deviations.yaml"
    data = yaml.safe_load(log.read_text(encoding="utf-8"))
    for entry in data["deviations"]:
        if entry["change"].startswith("behaviour: condition SR-5-STATIC "):
            entry["rationale"] = ""
    log.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    result = runner.invoke(app, ["--project-dir", str(root), "freeze", "-e", "0.15", "--reason", "x"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "MISSING rationale: behaviour: condition SR-5-STATIC (not the treatment)" in result.output
    assert not (root / "spec/0.15/freeze.lock").exists()
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == before
