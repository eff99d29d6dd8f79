"""``sr catalog import``: a catalog file from an MCP ``tools/list``, an OpenAI tools array or OpenAPI 3.

The importer (``runtime/catalog/importers``) builds the whole catalog in memory first; the file is
written only then, atomically, so a source with any problem leaves nothing (half-)written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from schemarouter.output_guard import output_guard
from schemarouter.runtime.catalog.importers import import_catalog_file, importer_codes
from schemarouter.runtime.catalog.io import catalog_digest, dump_catalog
from schemarouter.runtime.catalog.model import Catalog


@dataclass(frozen=True)
class ImportResult:
    """What was written: the catalog, its file and digest, and how many attributes were derived."""

    catalog: Catalog
    out: Path
    digest: str
    derived_route_ids: int
    derived_semantic_ids: int
    derived_side_effects: int


def import_catalog(
    project_root: Path, *, source_format: str, source: Path, out: Path, domain: str | None = None
) -> ImportResult:
    """Import ``source`` as ``source_format`` and write the catalog to ``out`` (checked first by the
    output guard of the project at ``project_root``: never into an experiment, never over ``source``)."""
    guard = output_guard(project_root, sources=[source])
    guard.file(out, option="--out")
    catalog = import_catalog_file(source_format, source, domain=domain)
    out = guard.write_text(out, dump_catalog(catalog), option="--out")
    fields = [f for e in catalog.endpoints for f in (*e.inputs, *e.outputs)]
    return ImportResult(
        catalog=catalog,
        out=out,
        digest=catalog_digest(catalog),
        derived_route_ids=sum("route_id" in e.derived for e in catalog.endpoints),
        derived_semantic_ids=sum("semantic_id" in f.derived for f in fields),
        derived_side_effects=sum("side_effect" in e.derived for e in catalog.endpoints),
    )


def source_formats() -> tuple[str, ...]:
    """The importers' stable codes."""
    return importer_codes()
