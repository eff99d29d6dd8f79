"""``schemarouter.catalog.import_(source, format)``: a catalog from an MCP, OpenAI or OpenAPI document."""

from __future__ import annotations

from pathlib import Path

from runtime.catalog.model import Catalog
from schemarouter.api.project import ProjectArg, project_paths

__all__ = ["Catalog", "formats", "import_"]


def import_(
    source: Path | str,
    format: str,
    *,
    domain: str | None = None,
    out: Path | str | None = None,
    project: ProjectArg = ".",
) -> Catalog:
    """The catalog ``source`` holds, read as ``format`` (``formats()``: mcp, openai, openapi); with
    ``out``, also written there (through the project's output guard, atomically)."""
    if out is None:
        from runtime.catalog.importers import import_catalog_file

        return import_catalog_file(format, Path(source), domain=domain)
    from schemarouter.application.catalog_import import import_catalog

    root = project_paths(project).root
    return import_catalog(
        root, source_format=format, source=Path(source), out=Path(out), domain=domain
    ).catalog


def formats() -> tuple[str, ...]:
    """The registered importers' codes."""
    from schemarouter.application.catalog_import import source_formats

    return source_formats()
