"""Catalog importers: MCP ``tools/list``, OpenAI ``tools`` and OpenAPI 3, each a registered ``Importer``.

``import_catalog_file(code, path, domain=...)`` reads the file, runs the importer registered under
``code`` and returns the ``Catalog``; any problem is one line naming the operation and the construct.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runtime.catalog.importers.options import ImportOptions, Skipped
from runtime.catalog.importers.problems import ImportProblem
from runtime.catalog.importers.registry import (
    Importer,
    importer_codes,
    importer_for,
    register_importer,
)
from runtime.catalog.importers.source import read_source
from runtime.catalog.model import Catalog


@dataclass(frozen=True)
class Imported:
    """An import's outcome: the catalog, the operations skipped (source order) and the domain used."""

    catalog: Catalog
    skipped: tuple[Skipped, ...]
    domain: str
    domain_from_file_name: bool

    @property
    def total(self) -> int:
        """The operations or tools the source declares (imported plus skipped)."""
        return self.catalog.size + len(self.skipped)


def default_domain(path: Path) -> str:
    """The domain when none is given: the file name up to its first dot."""
    return path.name.split(".")[0]


def import_source(code: str, path: Path, *, domain: str | None = None, strict: bool = False) -> Imported:
    """Import the source file at ``path`` read as format ``code`` (``mcp``, ``openai``, ``openapi``).

    ``domain`` (default: ``default_domain(path)``) qualifies routes whose source names no domain. An
    operation the catalog cannot hold is skipped (and listed), or with ``strict`` refuses the import.
    """
    importer = importer_for(code)
    source = read_source(path, yaml_allowed=code == "openapi")
    options = ImportOptions(domain=domain or default_domain(path), strict=strict)
    catalog = importer.import_catalog(source, options)
    return Imported(catalog, tuple(options.skipped), options.domain, domain is None)


def import_catalog_file(code: str, path: Path, *, domain: str | None = None, strict: bool = False) -> Catalog:
    """The catalog of ``import_source`` (the skipped operations dropped)."""
    return import_source(code, path, domain=domain, strict=strict).catalog


__all__ = [
    "ImportOptions",
    "ImportProblem",
    "Imported",
    "Importer",
    "Skipped",
    "default_domain",
    "import_catalog_file",
    "import_source",
    "importer_codes",
    "importer_for",
    "register_importer",
]
