"""The schema-valid spec documents that semantic checks read, and how a check reports a problem.

A semantic check declares the spec files it reads; it runs only when all of them passed their schema,
so it can rely on their shapes. Its problems carry file:line:col like every other problem.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from compiler.issues import SpecIssue, format_path
from compiler.yaml_loader import LoadedDocument, PathKey
from runtime.core.json_value import JSONValue

# The problems this module reports, by stable code (tests/cases/validation/<code>.yaml shows each).
PROBLEMS: Final[dict[str, str]] = {
    "CK101": "duplicate … … (also …)",
}


@dataclass
class SpecView:
    """Schema-valid spec documents by name."""

    documents: dict[str, LoadedDocument]

    def data(self, name: str) -> Any:
        return self.documents[name].data

    def issue(self, name: str, path: PathKey, message: str, *, at_key: bool = False, code: str) -> SpecIssue:
        return self.documents[name].issue(path, message, at_key=at_key, code=code)

    def has(self, *names: str) -> bool:
        return all(name in self.documents for name in names)


SemanticCheck = Callable[[SpecView], Iterable[SpecIssue]]


@dataclass(frozen=True)
class RegisteredCheck:
    """A semantic check and the spec files it reads."""

    reads: tuple[str, ...]
    check: SemanticCheck


def duplicates(
    view: SpecView,
    name: str,
    list_path: PathKey,
    items: Sequence[Mapping[str, JSONValue]],
    key: str,
    what: str,
) -> list[SpecIssue]:
    """A problem for every item whose ``key`` repeats an earlier item's (the schema makes it a scalar)."""
    seen: dict[JSONValue, int] = {}
    issues = []
    for index, item in enumerate(items):
        value = item.get(key)
        if value in seen:
            issues.append(
                view.issue(
                    name,
                    (*list_path, index, key),
                    f"duplicate {what} {value!r} (also {format_index(list_path, seen[value])})",
                    code="CK101",
                )
            )
        else:
            seen[value] = index
    return issues


def format_index(list_path: PathKey, index: int) -> str:
    """``("conditions",), 2`` -> ``conditions[2]``."""
    return format_path((*list_path, index))
