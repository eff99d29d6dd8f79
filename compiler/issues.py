"""One problem found in a spec file, and the error that carries all of them.

Every problem has a file, a 1-based ``line:col`` and the key path of the offending part, and prints as
``spec/conditions.yaml:14:3: conditions[2].refresh.max_per_episode: 7 is greater than 5``.
Problems sort by position, so a report reads top to bottom through each file.
"""

from __future__ import annotations

from collections.abc import Iterable

from runtime.core.errors import SchemaRouterError
from runtime.documents.issues import LOAD_CODE, Position, SpecIssue, format_path, sorted_issues

__all__ = [
    "LOAD_CODE",
    "Position",
    "SpecIssue",
    "SpecValidationError",
    "format_path",
    "sorted_issues",
    "with_codes",
]


class SpecValidationError(SchemaRouterError):
    """The specs are invalid; ``issues`` holds every problem found, in position order."""

    def __init__(self, issues: Iterable[SpecIssue]) -> None:
        self.issues = sorted_issues(issues)
        count = len(self.issues)
        lines = [str(issue) for issue in self.issues]
        lines.append(f"{count} problem{'s' if count != 1 else ''} in the specs; nothing was changed.")
        super().__init__("\n".join(lines))


def with_codes(err: SpecValidationError) -> str:
    """The error's text with each problem line ending in its stable code (``sr validate --codes``)."""
    lines = [f"{issue} [{issue.code}]" for issue in err.issues]
    return "\n".join([*lines, str(err).splitlines()[-1]])
