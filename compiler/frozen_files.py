"""Which files a freeze covers: everything under spec/ (but the lock) and everything under catalogs/.

That is every spec YAML, every schema, and the generated catalogs and task surface once they exist.
Hidden files and directories (names starting with ".") and ``__pycache__`` are skipped, so editor and
OS droppings do not count as drift.
"""

from __future__ import annotations

from pathlib import Path

from schemarouter.project import ProjectPaths

FROZEN_DIRS = ("spec", "catalogs")


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") or part == "__pycache__" for part in relative.parts)


def frozen_paths(paths: ProjectPaths) -> list[str]:
    """Project-relative paths (forward slashes) of every file a freeze covers, sorted."""
    found: list[str] = []
    for top in FROZEN_DIRS:
        base = paths.root / top
        if not base.is_dir():
            continue
        for path in base.rglob("*"):
            rel = path.relative_to(paths.root)
            if path.is_file() and not _hidden(rel) and path != paths.lock_file:
                found.append(rel.as_posix())
    return sorted(found)


def is_snapshotted(path: str) -> bool:
    """Spec files whose frozen data the lock keeps, so verify can say what changed."""
    return path.startswith("spec/") and path.endswith((".yaml", ".json"))
