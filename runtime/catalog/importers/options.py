"""What an import is told besides the file: the domain for names the source does not qualify, whether
an operation the catalog cannot hold refuses the import (``strict``) or is skipped, and the skips."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Skipped:
    """One operation or tool left out: where it is (``POST /pet/{petId}/uploadImage (uploadFile)``)
    and the construct the catalog cannot hold."""

    where: str
    construct: str

    def line(self) -> str:
        return f"skipped {self.where}: {self.construct}"


@dataclass(frozen=True)
class ImportOptions:
    """``domain``: the domain of every route whose source names none (``x-domain``, an OpenAPI tag, a
    path segment); it also prefixes derived route IDs and semantic IDs. ``strict``: an operation the
    catalog cannot hold refuses the whole import (one line) instead of being skipped; ``skipped``
    collects the skipped ones in source order."""

    domain: str
    strict: bool = False
    skipped: list[Skipped] = field(default_factory=list, compare=False, hash=False)

    def skip(self, where: str, construct: str) -> None:
        """Record a skipped operation (the caller raises instead when ``strict``)."""
        self.skipped.append(Skipped(where=where, construct=construct))
