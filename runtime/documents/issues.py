"""One problem at one place of one file: its 1-based ``line:col``, its key path and its message.

A problem prints as ``spec/conditions.yaml:14:3: conditions[2].refresh.max_per_episode: 7 is greater
than 5``; problems sort by position, so a report reads top to bottom through each file. The spec
compiler's error that carries many of them is ``compiler/issues.py`` ``SpecValidationError``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Position:
    """A 1-based line and column in a file."""

    line: int
    col: int


def format_path(path: tuple[str | int, ...]) -> str:
    """``("conditions", 2, "refresh")`` -> ``conditions[2].refresh``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


# The code of every problem the loaders find: a file that is not plain data (encoding, YAML or JSON syntax,
# anchors, tags, duplicate keys, depth, file names).
LOAD_CODE = "LD100"


@dataclass(frozen=True)
class SpecIssue:
    """A problem at one place of one file."""

    file: str
    position: Position
    path: tuple[str | int, ...]
    message: str
    # The problem's stable code (compiler/problem_codes.py); LOAD_CODE for what the loaders find.
    code: str = LOAD_CODE

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file, self.position.line, self.position.col, format_path(self.path), self.message)

    def __str__(self) -> str:
        where = f"{self.file}:{self.position.line}:{self.position.col}"
        shown = format_path(self.path)
        return f"{where}: {shown}: {self.message}" if shown else f"{where}: {self.message}"


def sorted_issues(issues: Iterable[SpecIssue]) -> list[SpecIssue]:
    """Issues in file and position order, without exact duplicates."""
    unique = {str(issue): issue for issue in issues}
    return sorted(unique.values(), key=SpecIssue.sort_key)
