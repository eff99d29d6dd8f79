"""What an import is told besides the file: the domain for names the source does not qualify."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ImportOptions:
    """``domain``: the domain of every route whose source names none (``x-domain``, an OpenAPI tag, a
    path segment); it also prefixes derived route IDs and semantic IDs."""

    domain: str
