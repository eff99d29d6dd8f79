"""Helpers for the spec tests: a temporary project holding copies of the real core specs.

Tests tamper with these copies only; the real spec/ is never modified.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from compiler.issues import SpecValidationError
from compiler.spec_files import CORE_SPEC_NAMES
from schemarouter.project import ProjectPaths

REPO = Path(__file__).resolve().parents[1]


def make_project(tmp_path: Path, names: tuple[str, ...] = CORE_SPEC_NAMES) -> ProjectPaths:
    """A project with copies of the repository's core spec files and their schemas (no lock)."""
    root = tmp_path / "project"
    (root / "spec" / "schema").mkdir(parents=True)
    for name in names:
        shutil.copy(REPO / "spec" / "0.14" / f"{name}.yaml", root / "spec" / f"{name}.yaml")
        schema = f"{name}.schema.json"
        shutil.copy(REPO / "spec" / "0.14" / "schema" / schema, root / "spec" / "schema" / schema)
    return ProjectPaths.at(root)


def edit(paths: ProjectPaths, rel: str, old: str, new: str) -> None:
    """Replace the first ``old`` in a project file; fail the test if it is not there."""
    path = paths.root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def write(paths: ProjectPaths, rel: str, text: str) -> None:
    path = paths.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def line_of(paths: ProjectPaths, rel: str, needle: str, *, occurrence: int = 1) -> int:
    """The 1-based line number of the ``occurrence``-th line containing ``needle``."""
    seen = 0
    for number, line in enumerate((paths.root / rel).read_text(encoding="utf-8").splitlines(), start=1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not in {rel}")


def validation_lines(paths: ProjectPaths) -> list[str]:
    """The problem lines validate_project raises with (fails if it does not raise)."""
    from compiler import validate_project

    with pytest.raises(SpecValidationError) as caught:
        validate_project(paths)
    return [str(issue) for issue in caught.value.issues]


def find_line(lines: list[str], prefix: str, fragment: str) -> str:
    """The one problem line that starts with ``prefix`` (file:line:) and contains ``fragment``."""
    matches = [line for line in lines if line.startswith(prefix) and fragment in line]
    assert matches, f"no line starting {prefix!r} containing {fragment!r} in:\n" + "\n".join(lines)
    return matches[0]
