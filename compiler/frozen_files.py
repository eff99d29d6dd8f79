"""Which files a freeze covers: everything in the experiment's spec/ (but the lock) and catalogs/.

That is every spec YAML, every schema, and the generated catalogs and task surface once they exist,
named by logical path (``spec/<rest>``, ``catalogs/<rest>``; see ``schemarouter.project``).
``__pycache__`` is skipped. A hidden file (a name starting with ".") and a symlink are refused, never
skipped: a frozen experiment is plain, visible files inside the project, so nothing can be read or
compiled that the freeze does not cover, and nothing outside the project can be pulled in.
"""

from __future__ import annotations

from pathlib import Path

from runtime.core.errors import SchemaRouterError
from schemarouter.project import ProjectPaths

FROZEN_DIRS = ("spec", "catalogs")
SKIPPED = ("__pycache__",)


def frozen_paths(paths: ProjectPaths) -> list[str]:
    """Logical paths of every file a freeze covers, sorted. A symlink anywhere is refused."""
    found: list[str] = []
    refused: list[str] = []
    for top in FROZEN_DIRS:
        base = paths.physical(f"{top}/x").parent
        if base.is_symlink():
            refused.append(f"{base.relative_to(paths.root).as_posix()}: {_SYMLINK}")
            continue
        if not base.is_dir():
            continue
        for path in base.rglob("*"):
            rel = path.relative_to(base)
            if any(part in SKIPPED for part in rel.parts):
                continue
            shown = path.relative_to(paths.root).as_posix()
            if path.is_symlink():
                refused.append(f"{shown}: {_SYMLINK}")
            elif path == paths.lock_file or _guard_file(path) or not path.is_file():
                continue
            elif any(part.startswith(".") for part in rel.parts):
                refused.append(f"{shown}: {_HIDDEN}")
            else:
                found.append(f"{top}/{rel.as_posix()}")
    if refused:
        raise SchemaRouterError("\n".join(sorted(refused)))
    return sorted(found)


_SYMLINK = "a symlink; an experiment's files must be plain files inside the project (copy the file in)"
_HIDDEN = "a hidden file; the freeze covers every file of an experiment, so rename or remove it"


def _guard_file(path: Path) -> bool:
    """Files the harness itself keeps beside the lock (the atomic-write temp file of the lock)."""
    return path.name.startswith(".freeze.lock.")


def is_snapshotted(path: str) -> bool:
    """Spec files whose frozen data the lock keeps, so verify can say what changed."""
    return path.startswith("spec/") and path.endswith((".yaml", ".json"))
