"""The hostile inputs of tests/cases/hostile/*.yaml: each gives its expected line, exit 1 or 2, no
traceback, and writes nothing it should not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hostile_support import apply_edit, assert_hostile_outcome, load_cases, make_project, run_cli

SPEC_CASES = load_cases("spec")


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
