"""The project's git commit and dirty flag, or nulls when the project is not its own git work tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

from runtime.spec_model import GitState


def run_git(root: Path, *args: str) -> str | None:
    """git's stdout for ``args`` in ``root``, or None when git is missing, fails or times out."""
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
    top = run_git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != root.resolve():
        return GitState(commit=None, dirty=None)
    head = run_git(root, "rev-parse", "--verify", "HEAD")
    status = run_git(root, "status", "--porcelain")
    return GitState(
        commit=head.strip() if head else None,
        dirty=None if status is None else bool(status.strip()),
    )


def uncommitted_paths(root: Path, *pathspecs: str) -> list[str]:
    """Paths under ``pathspecs`` that differ from HEAD or are untracked (empty without git)."""
    if git_state(root).commit is None:
        return []
    status = run_git(root, "status", "--porcelain", "--untracked-files=all", "--", *pathspecs)
    if not status:
        return []
    paths = []
    for line in status.splitlines():
        path = line[3:]
        if " -> " in path:
            path = path.split(" -> ", 1)[1]
        paths.append(path.strip('"'))
    return sorted(paths)
