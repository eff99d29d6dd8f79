"""The spec compiler's name for the line-aware YAML loader, which lives in ``runtime.documents``
(layer 0) so that every reader of a user's document (importers, intents, pools, query files) shares it."""

from __future__ import annotations

from runtime.documents.yaml_text import LoadedDocument, PathKey, load_yaml_text

__all__ = ["LoadedDocument", "PathKey", "load_yaml_text"]
