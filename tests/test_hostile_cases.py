"""The hostile inputs of tests/cases/hostile/*.yaml: each gives its expected line, exit 1 or 2, no
traceback, and writes nothing it should not."""

from __future__ import annotations

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
)

SPEC_CASES = load_cases("spec")
STATE_CASES = load_cases("state")


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
