"""Canonical JSON for every file this area writes: sorted keys, UTF-8, fixed separators, trailing newline.

Byte-identical outputs across runs depend on it, so nothing here may depend on dict insertion order,
hash seeds or the locale.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from runtime.core import atomic_write, safe_json
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject, JSONValue


def dumps(obj: JSONValue, *, indent: int | None = 2) -> str:
    """Canonical JSON text; ``indent=None`` gives one compact line (for JSONL and hashing)."""
    separators = (",", ": ") if indent is not None else (",", ":")
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=indent, separators=separators)


def write_json(path: Path, obj: JSONValue) -> None:
    """Write canonical JSON atomically (unique temporary file, fsync, rename)."""
    write_text_atomic(path, dumps(obj) + "\n")


def write_jsonl(path: Path, rows: Iterable[JSONValue]) -> None:
    """Write one compact canonical JSON object per line, atomically."""
    write_text_atomic(path, "".join(dumps(row, indent=None) + "\n" for row in rows))


def read_json(path: Path) -> JSONObject:
    """Parse a JSON object file this area wrote; a damaged one, or one that holds anything but an
    object, is a ``file:line:col:`` SchemaRouterError."""
    try:
        return _object(safe_json.loads(path.read_bytes()), line=1)
    except (OSError, ValueError) as err:
        raise SchemaRouterError(safe_json.describe(path, err, "cannot read")) from None


def read_jsonl(path: Path) -> list[JSONObject]:
    """Parse a JSONL file this area wrote: one JSON object per non-blank line."""
    try:
        text = safe_json.decode_utf8(path.read_bytes())
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    value = safe_json.loads(line)
                except safe_json.JsonTextError as err:
                    raise safe_json.JsonTextError(err.message, number, err.column) from None
                rows.append(_object(value, line=number))
        return rows
    except (OSError, ValueError) as err:
        raise SchemaRouterError(safe_json.describe(path, err, "cannot read")) from None


def _object(value: JSONValue, *, line: int) -> JSONObject:
    if not isinstance(value, dict):
        raise safe_json.JsonTextError("not a JSON object", line, 1)
    return value


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` atomically under a unique temporary name (``runtime.core.atomic_write``)."""
    atomic_write.write_text_atomic(path, text)
