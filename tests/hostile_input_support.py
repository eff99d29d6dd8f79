"""Helpers for the hostile user-document tests: the case files' inputs, written outside the project, and
the checks every case shares (tests/test_hostile_input.py, tests/test_hostile_input_generated.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from hostile_support import REPO, Outcome, expand, run_cli, tree

FROZEN = ("spec", "catalogs", "golden")


def openapi_document(operations: int) -> dict[str, Any]:
    """An OpenAPI 3.0 document with ``operations`` GET operations."""
    ok = {"200": {"description": "ok"}}
    paths = {
        f"/items{i}": {"get": {"operationId": f"getItem{i}", "responses": ok}} for i in range(operations)
    }
    return {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths}


def write_inputs(case: dict[str, Any], work: Path) -> None:
    """The files of a case in ``work``: ``files`` (text), ``json`` (data), ``copy`` (from the repo),
    ``generate``, then the ``replace`` edits."""
    repeat = case.get("repeat")
    for name, text in (case.get("files") or {}).items():
        (work / name).write_text(expand(text, repeat), encoding="utf-8", errors="surrogatepass")
    for name, data in (case.get("json") or {}).items():
        (work / name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    for name, source in (case.get("copy") or {}).items():
        shutil.copy(REPO / source, work / name)
    if "generate" in case:
        spec = case["generate"]
        (work / spec["name"]).write_text(json.dumps(openapi_document(spec["openapi_operations"])))
    for edit in case.get("replace") or ():
        path = work / edit["file"]
        text = path.read_text(encoding="utf-8")
        assert edit["old"] in text, edit
        path.write_text(text.replace(edit["old"], edit["new"], 1), encoding="utf-8")


def frozen_tree() -> dict[str, tuple[int, int]]:
    """Every file of the project's experiment folders, with size and modification time."""
    found: dict[str, tuple[int, int]] = {}
    for top in FROZEN:
        found.update({f"{top}/{k}": v for k, v in tree(REPO / top).items()})
    return found


def run_against_project(work: Path, args: list[str], *, may_write: tuple[str, ...] = ("out",)) -> Outcome:
    """``sr --project-dir REPO args`` in-process; what it wrote under ``work`` beyond ``may_write``, and
    an assertion that it changed nothing of the project's experiments."""
    before = frozen_tree()
    outcome = run_cli(work, args, may_write=may_write, project=REPO)
    assert frozen_tree() == before, "changed spec/, catalogs/ or golden/"
    return outcome


def assert_refused(outcome: Outcome, *, file: str | None) -> None:
    """Exit 1, one line (a problem line and nothing else), no traceback, nothing written, and for a
    file a line that starts ``file:line:col:``."""
    assert outcome.exit_code == 1, outcome.output
    assert "Traceback" not in outcome.output and "internal error" not in outcome.output, outcome.output
    assert outcome.written == [], f"wrote {outcome.written}"
    assert len(outcome.lines) == 1, outcome.output
    if file is not None:
        head = outcome.lines[0]
        assert head.startswith(f"{file}:"), outcome.output
        line, col = head[len(file) + 1 :].split(":", 2)[:2]
        assert line.isdigit() and col.isdigit(), outcome.output
