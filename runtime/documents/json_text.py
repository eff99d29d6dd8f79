"""Strict JSON loading for schemas, the lock and catalogs: duplicate keys and NaN are errors.

``runtime.core.safe_json`` is authoritative for the data (and bounds it: nesting depth, integer
length, lone surrogates). Positions for messages come from composing the same
text with the line-aware YAML loader (JSON is nearly YAML); where that fails (tabs, for instance),
problems point at the closest position known, or at 1:1.
"""

from __future__ import annotations

from typing import Any

from runtime.core import safe_json
from runtime.documents.issues import Position, SpecIssue
from runtime.documents.yaml_text import LoadedDocument, load_yaml_text


def parse_json_strict(text: str) -> Any:
    """Parse JSON, rejecting duplicate keys, NaN/Infinity, nesting deeper than the limit, over-long
    integers and lone surrogates. Raises ``JsonTextError`` (a ValueError) carrying line and column."""
    return safe_json.loads(text)


def load_json_text(text: str, *, file: str) -> LoadedDocument:
    """Load one JSON document with best-effort positions; problems are collected, not raised."""
    try:
        data = parse_json_strict(text)
    except safe_json.JsonTextError as err:
        issues: list[SpecIssue] = []
        if err.message.startswith("duplicate key"):
            marked = load_yaml_text(text, file=file)
            issues = [i for i in marked.issues if "duplicate key" in i.message]
        where = Position(err.line, err.column)
        issues = issues or [SpecIssue(file, where, (), f"not valid JSON: {err.message}")]
        return LoadedDocument(file=file, data=None, issues=issues)
    marked = load_yaml_text(text, file=file)
    if marked.issues or marked.data != data:
        return LoadedDocument(file=file, data=data)
    return LoadedDocument(
        file=file, data=data, value_positions=marked.value_positions, key_positions=marked.key_positions
    )
