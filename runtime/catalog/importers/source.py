"""Reading a source file: its bytes and digest, and its data (JSON, or YAML where the format allows it).

The file goes through the one bounded reading of user documents (``runtime.documents.user_file``):
a regular file of at most ``limits.DOCUMENT_BYTES``, UTF-8, read by the spec loader (JSON through
``safe_json``, YAML by the YAML 1.2 core schema, as OpenAPI 3.1 recommends for round-tripping with
JSON): no anchors, aliases, tags or duplicate keys, nesting at most ``limits.NESTING_DEPTH``, no control
characters. Any problem is one ``file:line:col: key.path: message`` line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime.documents import LoadedDocument, Position, read_user_document


@dataclass(frozen=True)
class SourceFile:
    """One source file: where it is, how to name it in messages, its bytes' digest and its data."""

    path: Path
    shown: str
    sha256: str
    data: Any
    document: LoadedDocument | None = None

    def position(self, path: tuple[str | int, ...]) -> Position | None:
        """Where ``path`` of the data was written (its closest known ancestor), when positions are known."""
        return None if self.document is None else self.document.position(path)


def read_source(path: Path, *, yaml_allowed: bool) -> SourceFile:
    """The file at ``path``; YAML is parsed only when ``yaml_allowed`` and the file is not JSON."""
    shown = str(path)
    document = read_user_document(path, shown_as=shown, what="source file", yaml_allowed=yaml_allowed)
    return SourceFile(
        path=path,
        shown=shown,
        sha256="sha256:" + document.sha256,
        data=document.data,
        document=document.loaded,
    )
