"""Strict JSON loading for schemas, the lock and catalogs: duplicate keys and NaN are errors.

The ``json`` module is authoritative for the data. Positions for messages come from composing the same
text with the line-aware YAML loader (JSON is nearly YAML); where that fails (tabs, for instance),
problems point at the closest position known, or at 1:1.
"""

from __future__ import annotations

import json
from typing import Any

from schemarouter.compiler.issues import Position, SpecIssue
from schemarouter.compiler.yaml_loader import LoadedDocument, load_yaml_text


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(f"duplicate key {key!r}")
        result[key] = value
    return result


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not plain JSON")


def parse_json_strict(text: str) -> Any:
    """Parse JSON, rejecting duplicate keys and NaN/Infinity. Raises ValueError."""
    return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)


def load_json_text(text: str, *, file: str) -> LoadedDocument:
    """Load one JSON document with best-effort positions; problems are collected, not raised."""
    try:
        data = parse_json_strict(text)
    except json.JSONDecodeError as err:
        return LoadedDocument(
            file=file,
            data=None,
            issues=[SpecIssue(file, Position(err.lineno, err.colno), (), f"not valid JSON: {err.msg}")],
        )
    except ValueError as err:
        marked = load_yaml_text(text, file=file)
        duplicates = [i for i in marked.issues if "duplicate key" in i.message]
        issues = duplicates or [SpecIssue(file, Position(1, 1), (), f"not valid JSON: {err}")]
        return LoadedDocument(file=file, data=None, issues=issues)
    marked = load_yaml_text(text, file=file)
    if marked.issues or marked.data != data:
        return LoadedDocument(file=file, data=data)
    return LoadedDocument(
        file=file, data=data, value_positions=marked.value_positions, key_positions=marked.key_positions
    )
