"""Canonical JSON for every file this area writes: sorted keys, UTF-8, fixed separators, trailing newline.

Byte-identical outputs across runs depend on it, so nothing here may depend on dict insertion order,
hash seeds or the locale.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def dumps(obj: Any, *, indent: int | None = 2) -> str:
    """Canonical JSON text; ``indent=None`` gives one compact line (for JSONL and hashing)."""
    separators = (",", ": ") if indent is not None else (",", ":")
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=indent, separators=separators)


def write_json(path: Path, obj: Any) -> None:
    """Write canonical JSON atomically (temporary file, fsync, rename)."""
    write_text_atomic(path, dumps(obj) + "\n")


def write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    """Write one compact canonical JSON object per line, atomically."""
    write_text_atomic(path, "".join(dumps(row, indent=None) + "\n" for row in rows))


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def read_jsonl(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
