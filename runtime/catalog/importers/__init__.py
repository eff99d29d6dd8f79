"""Catalog importers: MCP ``tools/list``, OpenAI ``tools`` and OpenAPI 3, each a registered ``Importer``.

``import_catalog_file(code, path, domain=...)`` reads the file, runs the importer registered under
``code`` and returns the ``Catalog``; any problem is one line naming the operation and the construct.
"""

from __future__ import annotations

from pathlib import Path

from schemarouter.runtime.catalog.importers.options import ImportOptions
from schemarouter.runtime.catalog.importers.problems import ImportProblem
from schemarouter.runtime.catalog.importers.registry import (
    Importer,
    importer_codes,
    importer_for,
    register_importer,
)
from schemarouter.runtime.catalog.importers.source import read_source
from schemarouter.runtime.catalog.model import Catalog


def import_catalog_file(code: str, path: Path, *, domain: str | None = None) -> Catalog:
    """The catalog of the source file at ``path`` read as format ``code`` (``mcp``, ``openai``, ``openapi``).

    ``domain`` (default: the file name up to its first dot) qualifies routes whose source names no domain.
    """
    importer = importer_for(code)
    source = read_source(path, yaml_allowed=code == "openapi")
    return importer.import_catalog(source, ImportOptions(domain=domain or path.name.split(".")[0]))


__all__ = [
    "ImportOptions",
    "ImportProblem",
    "Importer",
    "import_catalog_file",
    "importer_codes",
    "importer_for",
    "register_importer",
]
