"""Issue #25's must-show: a draft successor with an SR-10-STATIC condition, a state-aware condition
with replace_keep and an advancing cursor, the three blocked-call fields and the comparator pinned to
another strategy than the treatment validates and runs a dev pilot; a forbidden variant is refused by
sr validate with its file:line:col line. Every project here is a temporary copy
(scripts/variants_successor.py edits it)."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import sqlite3
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from test_dev_surface import experiments_copy
from typer.testing import CliRunner

from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import variants_successor  # noqa: E402


def _sr(root: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["--project-dir", str(root), *args], terminal_width=200)


@pytest.fixture(scope="module")
def successor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = experiments_copy(tmp_path_factory.mktemp("variants"), "0.15")
    shutil.copytree(REPO / "spec" / "0.14", root / "spec" / "0.14")  # the parent, for the deviations
    shutil.copytree(REPO / "catalogs" / "0.14", root / "catalogs" / "0.14")
    variants_successor.make_successor(
        root, mode="replace_keep", keep_top=2, keep_last=True, cursor=True, blocked_fields=True
    )
    return root


def _traces(run: Path, condition: str) -> list[dict[str, Any]]:
    with sqlite3.connect(run / "episodes.sqlite") as conn:
        rows = conn.execute("select trace_zlib from episodes where condition = ?", (condition,)).fetchall()
    return [json.loads(zlib.decompress(blob)) for (blob,) in rows]


def test_the_successor_validates(successor: Path) -> None:
    result = _sr(successor, "validate", "-e", "0.15")
    assert result.exit_code == 0, result.output
    conditions = (successor / "spec" / "0.15" / "conditions.yaml").read_text(encoding="utf-8")
    assert "SR-10-STATIC" in conditions and "replace_keep" in conditions and "cursor: true" in conditions
    deviations = _sr(successor, "deviations", "-e", "0.15")
    assert deviations.exit_code == 0, deviations.output
    shown = deviations.output
    assert shown.startswith("protocol values (a change needs a protocol-kind deviation):")
    # A change to a condition's retriever is a protocol deviation naming that condition; a changed
    # description is free.
    protocol = shown.split("  protocol changes")[1].split("  spec changes")[0]
    assert "conditions.conditions[SR-PROGRESSIVE-STATIC].retriever: added" in protocol
    assert "conditions.conditions[SR-5-STATE-AWARE].refresh.mode" in protocol
    assert 'state_contract.allowed: field "attempt_count" added' in protocol
    assert "conditions.conditions[SR-5-STATE-AWARE].description" not in protocol


def test_the_successor_runs_a_dev_pilot_with_every_variant(successor: Path) -> None:
    run = successor / "runs" / "pilot"
    result = _sr(
        successor, "run", "-e", "0.15", "--surface", "dev", "--draft", "--catalogs", "100",
        "--conditions", "SR-5-STATIC,SR-10-STATIC,SR-PROGRESSIVE-STATIC,SR-5-STATE-AWARE",
        "--tasks", "en", "--workers", "1", "--no-plots", "--run-dir", str(run),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "PILOT" in result.output
    static10 = _traces(run, "SR-10-STATIC")
    assert static10 and all(len(t["exposures"][t["initial_exposure"]]) == 10 for t in static10)
    treatment = _traces(run, "SR-5-STATE-AWARE")
    states = [turn["state_after"] for t in treatment for turn in t["turns"] if turn.get("state_after")]
    blocked = [s for s in states if s["last_execution_status"] == "blocked"]
    assert blocked, "the dev pilot has blocked calls"
    new_fields = {"last_attempted_route_id", "missing_input_semantic_ids", "attempt_count"}
    assert all(new_fields <= set(s) for s in states)
    missing = [s for s in blocked if s["last_error_class"] == "MISSING_INPUT"]
    assert any(s["missing_input_semantic_ids"] for s in missing)
    # The comparator ranks the original query with its own text_concat, SR-5-STATIC with the
    # experiment's typed_state: the same query, two retrievers, so some first pages differ.
    comparator, static = _first_pages(run, "SR-PROGRESSIVE-STATIC"), _first_pages(run, "SR-5-STATIC")
    assert any(comparator[task] != static[task] for task in static)
    assert _first_pages(run, "SR-5-STATE-AWARE") == static  # the treatment starts with the experiment's
    report_md = (run / "report.md").read_text(encoding="utf-8")
    assert "## Retriever per condition" in report_md
    assert "| SR-PROGRESSIVE-STATIC | `text_concat` |" in report_md
    assert "| SR-5-STATE-AWARE | `typed_state` |" in report_md
    explained = _sr(successor, "explain", str(run))
    assert explained.exit_code == 0, explained.output
    assert "SR-PROGRESSIVE-STATIC text_concat (its own); SR-5-STATE-AWARE typed_state (the experiment's)" in (
        explained.output
    )


def _first_pages(run: Path, condition: str) -> dict[str, list[str]]:
    return {
        t["task_id"]: t["turns"][0]["retrieval_calls"][0]["route_ids"][:5] for t in _traces(run, condition)
    }


def test_the_cursor_advances_on_a_repeated_block(successor: Path) -> None:
    run = successor / "runs" / "pilot"
    if not run.is_dir():
        pytest.skip("needs the pilot of the test above (same module, run first)")
    advanced = 0
    for trace in _traces(run, "SR-5-STATE-AWARE"):
        calls = [c for turn in trace["turns"] for c in turn["retrieval_calls"]]
        refreshes = [c for c in calls if c["query_kind"] == "original_plus_state"]
        for a, b in itertools.pairwise(refreshes):
            if _input(a) == _input(b):  # the same input again: the next page, so a deeper call
                assert b["depth"] > a["depth"]
                advanced += 1
    assert advanced > 0


def test_a_forbidden_variant_is_refused_by_validate_with_its_line(tmp_path: Path) -> None:
    root = experiments_copy(tmp_path, "0.15")
    shutil.copytree(REPO / "spec" / "0.14", root / "spec" / "0.14")
    shutil.copytree(REPO / "catalogs" / "0.14", root / "catalogs" / "0.14")
    variants_successor.make_successor(root, mode="add", cap=40)
    result = _sr(root, "validate", "-e", "0.15")
    assert result.exit_code == 1
    assert "conditions.yaml:" in result.output
    refused = "refresh cap 40 is not a variant the protocol allows SR-5-STATE-AWARE (allowed: at most 15)"
    assert refused in result.output and "Traceback" not in result.output
    deviations = _sr(root, "deviations", "-e", "0.15")  # refused here too, not first at sr run
    assert deviations.exit_code == 1 and refused in deviations.output
    line = next(x for x in deviations.output.splitlines() if refused in x)
    assert line.split(": ", 1)[0].count(":") == 2  # file:line:col


def _input(call: dict[str, Any]) -> str:
    """A refresh's input as the cursor compares it: the text without the attempt counter."""
    return re.sub(r'"attempt_count":[0-9]+,?', "", call["text"])


@pytest.mark.parametrize(
    ("old", "new", "refused"),
    [
        (
            "k_per_refresh: 5",
            "k_per_refresh: 8",
            "refresh.k_per_refresh: 8 is greater than 5 (the protocol allows at most 5 capabilities "
            "per refresh)",
        ),
        (
            "mode: replace",
            "mode: cumulative",
            "refresh.mode: refresh mode cumulative is not a variant the protocol allows SR-5-STATE-AWARE",
        ),
    ],
)
def test_the_issues_forbidden_values_are_refused_before_sr_run(
    tmp_path: Path, old: str, new: str, refused: str
) -> None:
    """Issue #25's two examples: accepted by sr deviations and refused only at sr run before; now both
    sr validate and sr deviations give the file:line:col line."""
    root = experiments_copy(tmp_path, "0.15")
    shutil.copytree(REPO / "spec" / "0.14", root / "spec" / "0.14")
    shutil.copytree(REPO / "catalogs" / "0.14", root / "catalogs" / "0.14")
    conditions = root / "spec" / "0.15" / "conditions.yaml"
    text = conditions.read_text(encoding="utf-8")
    at = text.index(old, text.index("id: SR-5-STATE-AWARE"))
    conditions.write_text(text[:at] + new + text[at + len(old) :], encoding="utf-8")
    for command in ("validate", "deviations"):
        result = _sr(root, command, "-e", "0.15")
        assert result.exit_code == 1 and "Traceback" not in result.output
        line = next(x for x in result.output.splitlines() if refused in x)
        assert line.startswith("spec/0.15/conditions.yaml:") and line.split(": ", 1)[0].count(":") == 2
