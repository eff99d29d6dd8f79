"""The spec compiler's name for the strict JSON loader, which lives in ``runtime.documents``
(layer 0) beside the YAML loader."""

from __future__ import annotations

from runtime.documents.json_text import load_json_text, parse_json_strict

__all__ = ["load_json_text", "parse_json_strict"]
