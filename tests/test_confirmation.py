"""Recorded pilots and confirmation surfaces: a draft's pilot appends to spec/<id>/pilots.yaml, `sr confirm`
records its confirmation, `sr freeze` prints both and freezes them with the draft, and 0.14 stays byte
for byte. Bad surfaces are one line each with nothing written; a hand-edited log fails `sr verify`.
Every project here is a temporary copy."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path

import pytest
from test_dev_surface import EXAMPLE, ROOT
from typer.testing import CliRunner

from compiler.chained_log import chain_problems, entry_digest
from runtime.report.console import scope_note
from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # full-scope runs: scheduled first (tests/conftest.py)

DRAFT = "0.15"


def _sr(root: Path, *args: str):
    return CliRunner().invoke(app, ["--project-dir", str(root), *args], terminal_width=200)


def _project(tmp_path: Path) -> Path:
    """Both experiments (a draft's freeze needs its parent) and the named surfaces."""
    root = tmp_path / "project"
    root.mkdir()
    shutil.copyfile(ROOT / "schemarouter.yaml", root / "schemarouter.yaml")
    for top in ("spec", "catalogs"):
        for name in ("0.14", DRAFT, "_surfaces"):
            shutil.copytree(ROOT / top / name, root / top / name)
    return root


def _tree(root: Path, *dirs: str) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for d in dirs
        for p in sorted((root / d).rglob("*"))
        if p.is_file()
    }


def _generate(root: Path, out: Path, seed: int = 5) -> Path:
    result = _sr(
        root, "surface", "generate", "--experiment", DRAFT, "--intents", str(EXAMPLE / "intents.yaml"),
        "--pools", str(EXAMPLE / "pools.yaml"), "--seed", str(seed), "--out", str(out), "--tag", "cf",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def _entries(root: Path, name: str, key: str) -> list[dict]:
    import yaml

    return list(yaml.safe_load((root / "spec" / DRAFT / name).read_text())[key])


@pytest.fixture()
def project(tmp_path):
    return _project(tmp_path)


def test_pilot_then_confirm_then_freeze_prints_and_freezes_both_and_leaves_0_14_unchanged(project, tmp_path):
    frozen_parent = _tree(project, "spec/0.14", "catalogs/0.14", "catalogs/_surfaces/dev/0.14")
    surface = _generate(project, tmp_path / "confirm-surface")

    pilot = _sr(
        project, "run", "--experiment", DRAFT, "--surface-file", str(surface), "--conditions", "ORACLE,FULL",
        "--catalogs", "100", "--tasks", "S1", "--workers", "1", "--no-plots",
    )  # fmt: skip
    assert pilot.exit_code == 0, pilot.output
    (first,) = _entries(project, "pilots.yaml", "pilots")
    assert first["surface"] == "file" and first["scope"]["full"] is False
    assert first["verdict"].startswith("Gate verdict: ") and "sub-scope" in first["verdict"]
    assert first["surface_sha256"] == hashlib.sha256((surface / "surface.jsonl").read_bytes()).hexdigest()
    assert first["previous_sha256"] == "" and first["sha256"] == entry_digest(first)

    confirmed = _sr(project, "confirm", "--experiment", DRAFT, "--surface-file", str(surface), "--no-plots")
    assert confirmed.exit_code == 0, confirmed.output
    assert "PILOT on surface confirmation: not the preregistered verdict" in confirmed.output
    (confirmation,) = _entries(project, "confirmation.yaml", "confirmations")
    assert confirmation["tasks"] == 180
    assert confirmation["generation"].startswith("sr surface generate --intents ")
    assert "--seed 5 --world-seed 5 --tag cf --experiment 0.15" in confirmation["generation"]
    pilots = _entries(project, "pilots.yaml", "pilots")
    assert [p["surface"] for p in pilots] == ["file", "confirmation"]
    assert pilots[1]["previous_sha256"] == pilots[0]["sha256"] and pilots[1]["scope"]["full"] is True
    assert pilots[1]["run_id"] == confirmation["run_id"]
    report_md = (project / "runs" / confirmation["run_id"] / "report.md").read_text()
    assert "> PILOT on surface confirmation: not the preregistered verdict." in report_md
    assert "**Pilots recorded while a draft: 1 run(s)**, per surface: file 1" in report_md

    listed = _sr(project, "experiments")
    assert "pilots recorded while a draft (runs per surface): confirmation 1, file 1" in listed.output

    freeze = _sr(
        project,
        "freeze",
        "--experiment",
        DRAFT,
        "--reason",
        "confirmed once",
        "--accept-infeasible",
        "test: G2 is unreachable under this protocol (sr preflight)",
    )
    assert freeze.exit_code == 0, freeze.output
    # The freeze's own preflight is a dev pilot of the draft, on the record like every other.
    assert "pilots recorded before this freeze: 3 (confirmation 1, dev 1, file 1)" in freeze.output
    assert f"run {first['run_id']}: {first['verdict']}" in freeze.output
    assert f"#1 {confirmation['recorded_at']}" in freeze.output
    assert confirmation["generation"] in freeze.output
    lock = json.loads((project / "spec" / DRAFT / "freeze.lock").read_text())
    assert {"spec/pilots.yaml", "spec/confirmation.yaml"} <= set(lock["files"])
    assert _sr(project, "verify", "--all").exit_code == 0

    # Frozen: a further pilot is never written into the folder, and says so.
    before = _tree(project, f"spec/{DRAFT}")
    after_freeze = _sr(
        project, "run", "--experiment", DRAFT, "--surface", "dev", "--conditions", "ORACLE",
        "--catalogs", "100", "--tasks", "S1", "--workers", "1", "--no-plots",
    )  # fmt: skip
    assert after_freeze.exit_code == 0, after_freeze.output
    assert "recorded in" in after_freeze.output and "run directory only" in after_freeze.output
    assert _tree(project, f"spec/{DRAFT}") == before
    assert _tree(project, "spec/0.14", "catalogs/0.14", "catalogs/_surfaces/dev/0.14") == frozen_parent


def _bad(project: Path, surface: Path, expected: str) -> None:
    before = _tree(project, "spec")
    result = _sr(project, "confirm", "--experiment", DRAFT, "--surface-file", str(surface))
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and expected in lines[0], result.output
    assert "Traceback" not in result.output
    assert _tree(project, "spec") == before
    assert not (project / "runs").exists()


def test_confirm_refuses_the_evaluation_and_dev_surfaces_under_other_names(project, tmp_path):
    surface = _generate(project, tmp_path / "good")
    evaluation = tmp_path / "renamed-eval"
    evaluation.mkdir()
    shutil.copyfile(project / "catalogs" / DRAFT / "surface.jsonl", evaluation / "surface.jsonl")
    shutil.copyfile(surface / "manifest.json", evaluation / "manifest.json")
    _bad(project, evaluation, "is the evaluation surface (the same tasks, by content)")
    dev = tmp_path / "renamed-dev"
    shutil.copytree(project / "catalogs" / "_surfaces" / "dev" / DRAFT, dev)
    _bad(project, dev, "is the dev surface (the same tasks, by content)")
    # A few dev tasks re-tagged inside a new surface are found by content, not by id.
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    dev_line = json.loads((dev / "surface.jsonl").read_text().splitlines()[0])
    dev_line["task_id"] = "S1-en-zz-99"
    lines = (surface / "surface.jsonl").read_text().splitlines()
    (mixed / "surface.jsonl").write_text("\n".join([*lines, json.dumps(dev_line)]) + "\n")
    shutil.copyfile(surface / "manifest.json", mixed / "manifest.json")
    _bad(project, mixed, "1 of its 181 tasks are tasks of the dev surface (first: S1-en-zz-99)")


def test_confirm_refuses_a_truncated_surface_and_routes_outside_the_catalogs(project, tmp_path):
    surface = _generate(project, tmp_path / "good")
    truncated = tmp_path / "truncated"
    truncated.mkdir()
    lines = (surface / "surface.jsonl").read_text().splitlines()
    (truncated / "surface.jsonl").write_text("\n".join(lines[:100]) + "\n")
    shutil.copyfile(surface / "manifest.json", truncated / "manifest.json")
    _bad(project, truncated, "truncated or edited: 100 tasks")
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copyfile(surface / "surface.jsonl", bare / "surface.jsonl")
    _bad(project, bare, "no manifest.json beside it")

    outside = tmp_path / "outside"
    outside.mkdir()
    task = json.loads(lines[0])
    task["hidden"]["plan"][0]["route_id"] = "weather.nowhere.v9"
    text = "\n".join([json.dumps(task), *lines[1:]]) + "\n"
    (outside / "surface.jsonl").write_text(text)
    manifest = json.loads((surface / "manifest.json").read_text())
    manifest["files"]["surface.jsonl"]["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    (outside / "manifest.json").write_text(json.dumps(manifest))
    _bad(project, outside, "needs weather.nowhere.v9, which is not in catalog_100 of this experiment")


def test_a_hand_edited_pilots_yaml_fails_verify_and_freeze(project, tmp_path):
    surface = _generate(project, tmp_path / "good")
    for _ in range(2):
        result = _sr(
            project, "run", "--experiment", DRAFT, "--surface-file", str(surface), "--conditions", "ORACLE",
            "--catalogs", "100", "--tasks", "S1,en", "--workers", "1", "--no-plots",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    log = project / "spec" / DRAFT / "pilots.yaml"
    honest = log.read_text()
    assert _sr(project, "verify", "--all").exit_code == 0

    log.write_text(honest.replace("Gate verdict: ", "Gate verdict (edited): ", 1))
    verify = _sr(project, "verify", "--all")
    assert verify.exit_code == 1
    edited = "spec/0.15/pilots.yaml: entry 1: sha256 does not match its content (edited by hand)"
    assert edited in verify.output
    freeze = _sr(
        project,
        "freeze",
        "--experiment",
        DRAFT,
        "--reason",
        "x",
        "--accept-infeasible",
        "test: G2 is unreachable under this protocol (sr preflight)",
    )
    assert freeze.exit_code == 1 and "nothing was frozen" in freeze.output
    assert not (project / "spec" / DRAFT / "freeze.lock").exists()

    # Removing the first entry breaks the second one's link.
    first_end = honest.index("  - run_id", honest.index("  - run_id") + 1)
    start = honest.index("  - run_id")
    log.write_text(honest[:start] + honest[first_end:])
    verify = _sr(project, "verify", "--all")
    assert verify.exit_code == 1 and "entry 1: previous_sha256 does not name" in verify.output


def test_the_chain_names_every_broken_entry():
    first = {"run_id": "a", "previous_sha256": ""}
    first["sha256"] = entry_digest(first)
    second = {"run_id": "b", "previous_sha256": first["sha256"]}
    second["sha256"] = entry_digest(second)
    assert chain_problems([first, second], "log") == []
    assert chain_problems([second], "log") == [
        "log: entry 1: previous_sha256 does not name entry 0's digest (an entry was removed, reordered or "
        "inserted by hand)"
    ]
    assert chain_problems([first, {**second, "run_id": "c"}], "log") == [
        "log: entry 2: sha256 does not match its content (edited by hand)"
    ]


def test_a_full_scope_pilot_says_it_is_the_full_scope_on_another_surface():
    gate = {"preregistered_scope": False}
    full = {"gate": gate, "pilot": {"surface": "dev", "full_scope": True}}
    assert scope_note(full) == " (PILOT on surface dev: not the preregistered verdict)"
    part = {"gate": gate, "pilot": {"surface": "dev", "full_scope": False}}
    assert scope_note(part) == " (sub-scope: not the preregistered verdict)"
    assert scope_note({"gate": {"preregistered_scope": True}}) == ""


def test_compare_across_surfaces_prints_the_unpaired_contrast_table(project, tmp_path):
    surface = _generate(project, tmp_path / "other")
    common = ["--conditions", "SR-5-STATE-AWARE,SR-PROGRESSIVE-STATIC", "--catalogs", "100", "--tasks", "S1"]
    for name, where in (("dev-pilot", ["--surface", "dev"]), ("other", ["--surface-file", str(surface)])):
        result = _sr(
            project, "run", "--experiment", DRAFT, *where, *common, "--run-dir", str(project / "runs" / name),
            "--workers", "1", "--no-plots",
        )  # fmt: skip
        assert result.exit_code == 0, result.output
    runs = project / "runs"
    out = tmp_path / "compare.json"
    compared = _sr(project, "compare", str(runs / "dev-pilot"), str(runs / "other"), "--json", str(out))
    assert compared.exit_code == 0, compared.output
    text = compared.output
    assert "UNPAIRED: the two runs share no task x condition x catalog episode (different surfaces)" in text
    assert "Unpaired contrasts SR-5-STATE-AWARE - SR-PROGRESSIVE-STATIC at catalog 100" in text
    assert "sr run --experiment 0.14 --surface dev, then sr compare it with this run" in text
    data = json.loads(out.read_text())
    cell = data["by_catalog"]["100"]["task_pass"]
    a_rows = [json.loads(line) for line in (runs / "dev-pilot" / "per_task.jsonl").read_text().splitlines()]

    def mean(condition: str) -> float:
        values = [r["task_pass"] for r in a_rows if r["condition"] == condition]
        return sum(values) / len(values)

    assert cell["a"]["point"] == pytest.approx(mean("SR-5-STATE-AWARE") - mean("SR-PROGRESSIVE-STATIC"))
    assert cell["b_minus_a"]["point"] == pytest.approx(cell["b"]["point"] - cell["a"]["point"])
    assert cell["a"]["ci_low"] <= cell["a"]["point"] <= cell["a"]["ci_high"]
    assert data["bootstrap"]["seed_a"] != data["bootstrap"]["seed_b"]
    again = _sr(project, "compare", str(runs / "dev-pilot"), str(runs / "other"))
    assert again.output == compared.output  # named seeds: the same table every time


def test_a_fresh_run_under_a_reused_directory_name_is_its_own_pilot_and_a_resume_is_not(project, tmp_path):
    run_dir = tmp_path / "pilot-run"
    args = (
        "run", "--experiment", DRAFT, "--surface", "dev", "--conditions", "ORACLE", "--catalogs", "100",
        "--tasks", "S1", "--workers", "1", "--no-plots", "--run-dir", str(run_dir),
    )  # fmt: skip
    assert _sr(project, *args).exit_code == 0
    shutil.rmtree(run_dir)
    time.sleep(1.1)  # the log's times have one-second resolution; a new directory is created after the entry
    again = _sr(project, *args)
    assert again.exit_code == 0, again.output
    assert "draft: recorded in" in again.output
    resumed = _sr(
        project,
        "run",
        "--experiment",
        DRAFT,
        "--run-dir",
        str(run_dir),
        "--resume",
        "--workers",
        "1",
        "--no-plots",
    )
    assert resumed.exit_code == 0, resumed.output
    pilots = _entries(project, "pilots.yaml", "pilots")
    assert [p["run_id"] for p in pilots] == ["pilot-run", "pilot-run"]
    assert pilots[1]["previous_sha256"] == pilots[0]["sha256"]
