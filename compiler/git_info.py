"""The project's git commit and dirty flag, or nulls when the project is not its own git work tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

from schemarouter.runtime.spec_model import GitState


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def git_state(root: Path) -> GitState:
    """HEAD and whether the work tree differs from it (untracked files count; ignored ones do not).

    A project directory nested inside some other repository is not a git project: its commit would
    describe the other repository.
    """
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != root.resolve():
        return GitState(commit=None, dirty=None)
    head = _git(root, "rev-parse", "--verify", "HEAD")
    status = _git(root, "status", "--porcelain")
    return GitState(
        commit=head.strip() if head else None,
        dirty=None if status is None else bool(status.strip()),
    )
