"""``sr catalog import``: a catalog file from an MCP ``tools/list``, an OpenAI tools array or OpenAPI 3.

The importer (``runtime/catalog/importers``) builds the whole catalog in memory first; the file is
written only then, atomically, so a source with any problem leaves nothing (half-)written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runtime.catalog.importers import Skipped, import_source, importer_codes
from runtime.catalog.io import catalog_digest, dump_catalog
from runtime.catalog.model import Catalog
from schemarouter.output_guard import output_guard


@dataclass(frozen=True)
class ImportResult:
    """What was written: the catalog, its file and digest, and how many attributes were derived."""

    catalog: Catalog
    out: Path
    digest: str
    derived_route_ids: int
    derived_semantic_ids: int
    derived_side_effects: int
    skipped: tuple[Skipped, ...] = ()
    domain: str = ""
    domain_from_file_name: bool = False

    @property
    def total(self) -> int:
        """The operations or tools the source declares."""
        return self.catalog.size + len(self.skipped)

    def summary(self) -> str:
        """``19 operations: 17 imported, 2 skipped (uploadFile: binary body, ...)``."""
        line = f"{self.total} operations: {self.catalog.size} imported, {len(self.skipped)} skipped"
        if self.skipped:
            line += " (" + "; ".join(s.where for s in self.skipped) + ")"
        return line

    def domain_hint(self) -> str | None:
        """The line suggesting ``--domain`` when the default domain came from the file name."""
        if not self.domain_from_file_name:
            return None
        return (
            f"domain {self.domain!r} is the file name's first part (used for routes the source does not "
            f"place); pass --domain NAME to choose it"
        )


def import_catalog(
    project_root: Path,
    *,
    source_format: str,
    source: Path,
    out: Path,
    domain: str | None = None,
    strict: bool = False,
) -> ImportResult:
    """Import ``source`` as ``source_format`` and write the catalog to ``out`` (checked first by the
    output guard of the project at ``project_root``: never into an experiment, never over ``source``).
    An operation the catalog cannot hold is skipped and listed in ``skipped``; ``strict`` refuses instead."""
    guard = output_guard(project_root, sources=[source])
    guard.file(out, option="--out")
    imported = import_source(source_format, source, domain=domain, strict=strict)
    catalog = imported.catalog
    out = guard.write_text(out, dump_catalog(catalog), option="--out")
    fields = [f for e in catalog.endpoints for f in (*e.inputs, *e.outputs)]
    return ImportResult(
        catalog=catalog,
        out=out,
        digest=catalog_digest(catalog),
        derived_route_ids=sum("route_id" in e.derived for e in catalog.endpoints),
        derived_semantic_ids=sum("semantic_id" in f.derived for f in fields),
        derived_side_effects=sum("side_effect" in e.derived for e in catalog.endpoints),
        skipped=imported.skipped,
        domain=imported.domain,
        domain_from_file_name=imported.domain_from_file_name,
    )


def source_formats() -> tuple[str, ...]:
    """The importers' stable codes."""
    return importer_codes()
