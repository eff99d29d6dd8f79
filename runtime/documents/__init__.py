"""Reading YAML and JSON documents strictly, with every problem at its ``file:line:col:``.

``yaml_text`` and ``json_text`` are the spec loader (the compiler reads every spec through them);
``user_file`` is the one bounded reading of a document a user hands in (importer sources, intents,
pools, judged queries), with the limits of ``runtime/core/limits.py``. Layer 0: this package imports
only ``runtime.core.errors``, ``runtime.core.safe_json`` and ``runtime.core.limits``.
"""

from __future__ import annotations

from runtime.documents.issues import LOAD_CODE, Position, SpecIssue, format_path, sorted_issues
from runtime.documents.json_text import load_json_text, parse_json_strict
from runtime.documents.user_file import (
    UserDocument,
    control_characters,
    decode_user_text,
    issue_lines,
    one_line,
    read_user_bytes,
    read_user_document,
    shown,
)
from runtime.documents.yaml_text import LoadedDocument, PathKey, load_yaml_text

__all__ = [
    "LOAD_CODE",
    "LoadedDocument",
    "PathKey",
    "Position",
    "SpecIssue",
    "UserDocument",
    "control_characters",
    "decode_user_text",
    "format_path",
    "issue_lines",
    "load_json_text",
    "load_yaml_text",
    "one_line",
    "parse_json_strict",
    "read_user_bytes",
    "read_user_document",
    "shown",
    "sorted_issues",
]
