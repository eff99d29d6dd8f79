"""``catalogs/surface.jsonl``: one task per line, visible keys at top level, hidden under ``hidden``."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from runtime.core.content_memo import ContentMemo
from runtime.core.errors import SchemaRouterError
from runtime.surface.model import Task

SURFACE_FILE = "surface.jsonl"


def dump_surface(tasks: Iterable[Task]) -> str:
    """The exact text of the surface file (tasks sorted by task_id, compact sorted-key JSON lines)."""
    rows = sorted(tasks, key=lambda t: t.task_id)
    return "".join(
        json.dumps(t.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        + "\n"
        for t in rows
    )


def load_surface(catalogs_dir: Path) -> list[Task]:
    """All tasks of the frozen surface, sorted by task_id."""
    path = Path(catalogs_dir) / SURFACE_FILE
    if not path.exists():
        raise SchemaRouterError(f"{path}: no task surface; run `sr generate` first")
    return load_surface_file(path)


# The parsed tasks of the last few surface files read, by their exact bytes (runtime/core/content_memo.py).
_PARSED: ContentMemo[bytes, tuple[Task, ...]] = ContentMemo(maxsize=8)


def load_surface_file(path: Path) -> list[Task]:
    """All tasks of one surface file (the evaluation surface, or a pilot surface), sorted by task_id."""
    path = Path(path)
    if not path.is_file():
        raise SchemaRouterError(f"{path}: no such surface file")
    raw = path.read_bytes()
    return list(_PARSED.get(raw, lambda: _parse(path, raw.decode("utf-8"))))


def _parse(path: Path, text: str) -> tuple[Task, ...]:
    tasks = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                tasks.append(Task.model_validate_json(line))
            except ValueError as err:
                raise SchemaRouterError(f"{path}:{number}: not a valid task: {err}") from None
    return tuple(sorted(tasks, key=lambda t: t.task_id))
