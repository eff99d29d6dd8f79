"""Canonical JSON for every file this area writes: sorted keys, UTF-8, fixed separators, trailing newline.

Byte-identical outputs across runs depend on it, so nothing here may depend on dict insertion order,
hash seeds or the locale.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from runtime.core import atomic_write, safe_json
from runtime.core.errors import SchemaRouterError


def dumps(obj: Any, *, indent: int | None = 2) -> str:
    """Canonical JSON text; ``indent=None`` gives one compact line (for JSONL and hashing)."""
    separators = (",", ": ") if indent is not None else (",", ":")
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=indent, separators=separators)


def write_json(path: Path, obj: Any) -> None:
    """Write canonical JSON atomically (unique temporary file, fsync, rename)."""
    write_text_atomic(path, dumps(obj) + "\n")


def write_jsonl(path: Path, rows: Iterable[Any]) -> None:
    """Write one compact canonical JSON object per line, atomically."""
    write_text_atomic(path, "".join(dumps(row, indent=None) + "\n" for row in rows))


def read_json(path: Path) -> Any:
    """Parse a JSON file this area wrote; a damaged one is a ``file:line:col:`` SchemaRouterError."""
    try:
        return safe_json.loads(path.read_bytes())
    except (OSError, ValueError) as err:
        raise SchemaRouterError(safe_json.describe(path, err, "cannot read")) from None


def read_jsonl(path: Path) -> list[Any]:
    try:
        text = safe_json.decode_utf8(path.read_bytes())
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    rows.append(safe_json.loads(line))
                except safe_json.JsonTextError as err:
                    raise safe_json.JsonTextError(err.message, number, err.column) from None
        return rows
    except (OSError, ValueError) as err:
        raise SchemaRouterError(safe_json.describe(path, err, "cannot read")) from None


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` atomically under a unique temporary name (``runtime.core.atomic_write``)."""
    atomic_write.write_text_atomic(path, text)
