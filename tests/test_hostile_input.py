"""The hostile user documents of tests/cases/hostile/input.yaml (issue 28, part 2): each gives its one
expected line and exit 1 (or, for a side effect, the catalog it must give), no traceback, nothing
written but its --out, the project's experiments untouched; `sr verify --all` passes after them all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from extras import require_module
from hostile_input_support import assert_refused, run_against_project, write_inputs
from hostile_support import REPO, expand, load_cases, run_cli

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

require_module("openapi_spec_validator", extra="catalog-import")
require_module("mcp.types", extra="catalog-import")

CASES = load_cases("input")


def _expanded(text: str, work: Path, case: dict[str, Any]) -> str:
    return expand(text, case.get("repeat")).replace("{dir}", str(work)).replace("{repo}", str(REPO))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_input_case(case: dict[str, Any], tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    write_inputs(case, work)
    args = [_expanded(arg, work, case) for arg in case["args"]]
    outcome = run_against_project(work, args, may_write=("out",))
    if case.get("exit", 1) == 0:
        assert outcome.exit_code == 0, outcome.output
        expect = case["expect"]
        value: Any = json.loads((work / expect["file"]).read_text(encoding="utf-8"))
        for key in expect["path"]:
            value = value[key]
        assert value == expect["equals"]
        return
    file = _expanded(case["file"], work, case) if "file" in case else None
    assert_refused(outcome, file=file)
    if "line" in case:
        assert outcome.lines == [_expanded(case["line"], work, case)], outcome.output
    if "contains" in case:
        assert _expanded(case["contains"], work, case) in outcome.lines[0], outcome.output


def test_every_item_of_part_2_has_a_case() -> None:
    items = {case["item"] for case in CASES}
    assert items >= {"R02", "R03", "R04", "R05", "R06", "R07", "R08", "R13", "R17", "R18", "R19", "R21"}


def test_verify_all_passes_after_the_cases(tmp_path: Path) -> None:
    outcome = run_cli(tmp_path, ["verify", "--all"], project=REPO)
    assert outcome.exit_code == 0, outcome.output
