"""The hostile inputs of tests/cases/hostile/*.yaml: each gives its expected line, exit 1 or 2, no
traceback, and writes nothing it should not."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hostile_support import (
    REPO,
    apply_edit,
    assert_hostile_outcome,
    expand,
    load_cases,
    make_project,
    run_cli,
    use_compile_cache,
)

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

SPEC_CASES = load_cases("spec")
STATE_CASES = load_cases("state")
STORE_CASES = load_cases("store")
CLI_CASES = load_cases("cli")


@pytest.mark.parametrize("case", SPEC_CASES, ids=[c["id"] for c in SPEC_CASES])
def test_spec_case(case: dict[str, Any], tmp_path: Path) -> None:
    root = make_project(tmp_path / "project", case.get("project", "core"))
    for edit in (case["edit"], case.get("also")):
        if edit:
            apply_edit(root, edit)
    outcome = run_cli(root, case["args"], may_write=tuple(case.get("may_write", ())))
    assert_hostile_outcome(outcome, file=case.get("file"))
    if "line" in case:
        assert case["line"] in outcome.lines, outcome.output
    if "contains" in case:
        assert any(case["contains"] in line for line in outcome.lines), outcome.output
    if "max_line" in case:
        assert max(len(line) for line in outcome.lines) <= case["max_line"], outcome.output


@pytest.mark.parametrize("case", STATE_CASES, ids=[c["id"] for c in STATE_CASES])
def test_state_case(case: dict[str, Any], tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    if "state_hex" in case:
        state.write_bytes(bytes.fromhex(case["state_hex"]))
    else:
        state.write_text(expand(case["state"], case.get("repeat")), encoding="utf-8")
    args = ["retrieve", "--catalog", "100", "--state", str(state), "weather forecast"]
    outcome = run_cli(tmp_path, args, project=REPO)
    if "line" not in case:
        assert outcome.exit_code == 0, outcome.output
        return
    assert_hostile_outcome(outcome, file=str(state))
    assert outcome.lines == [case["line"].replace("{file}", str(state))], outcome.output


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A frozen project copy with one finished, scored run of the real engine (two episodes)."""
    root = make_project(tmp_path_factory.mktemp("store") / "project", "full")
    args = ["run", "--conditions", "C2,C3", "--catalogs", "100", "--tasks", "S1-en-01", "--no-plots"]
    outcome = run_cli(
        root, [*args, "--workers", "1", "--run-dir", str(root / "runs" / "run")], may_write=("",)
    )
    assert outcome.exit_code == 0, outcome.output
    return root


def damage_run(run: Path, damage: dict[str, Any]) -> None:
    """Apply one ``damage`` entry of store.yaml to the run directory ``run``."""
    if "sql" in damage:
        with sqlite3.connect(run / "episodes.sqlite") as conn:
            for statement in damage["sql"]:
                conn.execute(statement)
        return
    if "write" in damage:
        (run / damage["write"]["file"]).write_text(damage["write"]["text"], encoding="utf-8")
        return
    if "replace" in damage:
        path = run / damage["replace"]["file"]
        text = path.read_text(encoding="utf-8")
        assert damage["replace"]["old"] in text
        path.write_text(text.replace(damage["replace"]["old"], damage["replace"]["new"], 1), encoding="utf-8")
        return
    spec = damage["overwrite"]
    with open(run / spec["file"], "r+b") as handle:
        handle.seek(spec["offset"])
        handle.write(bytes.fromhex(spec["hex"]) * spec["times"])


@pytest.mark.parametrize("case", STORE_CASES, ids=[c["id"] for c in STORE_CASES])
def test_store_case(
    case: dict[str, Any], finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_compile_cache(monkeypatch)
    root = tmp_path / "project"
    shutil.copytree(finished_run, root, symlinks=True)
    run = root / "runs" / "run"
    for leftover in ("report.json", "report.md", "per_task.jsonl"):
        (run / leftover).unlink(missing_ok=True)
    damage_run(run, case["damage"])
    args = [arg.replace("{run}", str(run)) for arg in case["args"]]
    outcome = run_cli(root, args, may_write=("runs/run/", *case.get("may_write", ())))
    assert_hostile_outcome(outcome, file=case["file"].replace("{run}", str(run)) if "file" in case else None)
    assert not (run / "report.json").exists(), "a refused run was scored"
    if "line" in case:
        assert case["line"].replace("{run}", str(run)) in outcome.lines, outcome.output
    if "contains" in case:
        assert any(case["contains"] in line for line in outcome.lines), outcome.output


@pytest.fixture(scope="module")
def cli_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A frozen project copy shared by the argument cases (each checks what it wrote)."""
    return make_project(tmp_path_factory.mktemp("cli") / "project", "full")


@pytest.mark.parametrize("case", CLI_CASES, ids=[c["id"] for c in CLI_CASES])
def test_cli_case(
    case: dict[str, Any], cli_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_compile_cache(monkeypatch)
    if case.get("no_retry_wait"):
        # Each client binds time.sleep when it is made, so the wait is zeroed where it is computed.
        monkeypatch.setattr("runtime.agents.http_client.backoff_delay", lambda *_: 0.0)
    root = cli_project
    if case.get("project") == "empty":
        root = tmp_path / "empty"
        root.mkdir()
    for name, text in case.get("files", {}).items():
        (root / name).write_text(text, encoding="utf-8")
    for name, data in case.get("files_hex", {}).items():
        (root / name).write_bytes(bytes.fromhex(data))
    if case.get("cwd_project"):
        monkeypatch.chdir(root)
    args = [expand(arg, case.get("repeat")).replace("{project}", str(root)) for arg in case["args"]]
    outcome = run_cli(root, args, may_write=tuple(case.get("may_write", ())))
    assert_hostile_outcome(outcome, file=None)
    assert not (root / "runs").exists() or not any((root / "runs").iterdir()), "a run directory was made"
    if "line" in case:
        assert outcome.lines[-1] == case["line"].replace("{project}", str(root)), outcome.output
    if "contains" in case:
        assert case["contains"] in outcome.lines[-1], outcome.output


def test_an_internal_error_is_one_line_and_debug_shows_the_traceback(
    cli_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import compiler

    def broken(paths: Any) -> Any:
        raise KeyError("a fault of the program")

    monkeypatch.setattr(compiler, "validate_project", broken)
    outcome = run_cli(cli_project, ["validate"])
    assert outcome.exit_code == 1
    assert outcome.lines == [
        "internal error: KeyError: 'a fault of the program' (a fault of sr, not of your input; "
        "rerun with `sr --debug ...` for the traceback)"
    ]
    from typer.testing import CliRunner

    from schemarouter.cli.app import app

    debug = CliRunner().invoke(app, ["--debug", "--project-dir", str(cli_project), "validate"])
    assert isinstance(debug.exception, KeyError)
