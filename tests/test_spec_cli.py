"""sr validate / freeze / verify / compile through typer's CliRunner, on temporary project copies."""

from __future__ import annotations

import pytest
from spec_support import edit, make_project
from typer.testing import CliRunner

from schemarouter.cli.app import app

runner = CliRunner()


def _sr(paths, *args: str):
    return runner.invoke(app, ["--project-dir", str(paths.root), *args])


def test_validate_ok_and_failure(tmp_path) -> None:
    paths = make_project(tmp_path)
    ok = _sr(paths, "validate")
    assert ok.exit_code == 0, ok.output
    assert ok.stdout.startswith(
        "spec: 7 files valid (conditions, experiment, gates, metrics, protocol, state_contract, strata)"
    )
    edit(
        paths,
        "spec/conditions.yaml",
        "initial_k: 5\n    description: One",
        "initial_k: 6\n    description: One",
    )
    bad = _sr(paths, "validate")
    assert bad.exit_code == 1
    assert bad.stderr.splitlines() == [
        "spec/conditions.yaml:8:16: conditions[0].initial_k: 6 differs from the protocol's start at the "
        "top 5",
        "1 problem in the specs; nothing was changed.",
    ]
    assert "Traceback" not in bad.output


def test_freeze_verify_compile_round_trip_and_tamper(tmp_path) -> None:
    paths = make_project(tmp_path)
    draft = _sr(paths, "compile")
    assert draft.exit_code == 0 and "compiled a DRAFT" in draft.stdout
    assert _sr(paths, "verify").exit_code == 1
    assert _sr(paths, "compile", "--require-frozen").exit_code == 1
    frozen = _sr(paths, "freeze", "--reason", "initial")
    assert frozen.exit_code == 0 and "froze 14 files at sha256:" in frozen.stdout
    verified = _sr(paths, "verify")
    assert verified.exit_code == 0 and verified.stdout.startswith(
        "spec/freeze.lock: OK, experiment 0.14: 14 files match root"
    )
    compiled = _sr(paths, "compile", "--require-frozen")
    assert compiled.exit_code == 0 and compiled.stdout.startswith(
        "build/compiled.json: compiled, frozen at sha256:"
    )
    edit(
        paths,
        "spec/state_contract.yaml",
        "  - name: task_incomplete",
        "  - name: foo\n    type: {kind: boolean}\n    description: x\n  - name: task_incomplete",
    )
    drift = _sr(paths, "verify")
    assert drift.exit_code == 1
    assert 'spec/state_contract.yaml: state_contract.allowed: field "foo" added' in drift.stderr.splitlines()
    refused = _sr(paths, "compile")
    assert (
        refused.exit_code == 1
        and "state field 'foo' is not one of the protocol's allowed items" in refused.stderr
    )
    assert "Traceback" not in drift.output + refused.output


def test_freeze_needs_a_reason(tmp_path) -> None:
    paths = make_project(tmp_path)
    missing = _sr(paths, "freeze")
    assert missing.exit_code == 2 and "--reason" in missing.output
    empty = _sr(paths, "freeze", "--reason", " ")
    assert empty.exit_code == 1 and "needs a reason" in empty.stderr


def test_project_dir_defaults_to_the_current_directory(tmp_path, monkeypatch) -> None:
    paths = make_project(tmp_path)
    monkeypatch.chdir(paths.root)
    result = runner.invoke(app, ["freeze", "--reason", "from cwd"])
    assert result.exit_code == 0, result.output
    assert paths.lock_file.exists()


def test_missing_spec_directory_is_a_clean_error(tmp_path) -> None:
    result = runner.invoke(app, ["--project-dir", str(tmp_path), "validate"])
    assert result.exit_code == 1 and "no spec directory" in result.stderr


@pytest.mark.parametrize(
    ("command", "phrase"),
    [
        ("validate", "file:line:col"),
        ("freeze", "RFC 8785"),
        ("verify", "exit 1 on any drift"),
        ("compile", "build/compiled.json"),
    ],
)
def test_help_explains_each_command(command: str, phrase: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert phrase in " ".join(result.stdout.split())
