"""Reading and writing catalog files: ``catalogs/catalog_<size>.json``.

The file is the ``Catalog`` model as JSON (sorted keys, endpoints sorted by route_id, two-space
indent, UTF-8, trailing newline), so regenerating it is byte-identical.
"""

from __future__ import annotations

import json
from pathlib import Path

from schemarouter.errors import SchemaRouterError
from schemarouter.runtime.catalog.model import Catalog


def catalog_path(catalogs_dir: Path, size: int) -> Path:
    return Path(catalogs_dir) / f"catalog_{size}.json"


def dump_catalog(catalog: Catalog) -> str:
    """The exact text of a catalog file."""
    data = catalog.model_dump(mode="json")
    return json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1) + "\n"


def load_catalog(catalogs_dir: Path, size: int) -> Catalog:
    """The catalog of ``size`` endpoints from ``catalogs_dir`` (run ``sr generate`` to create it)."""
    path = catalog_path(catalogs_dir, size)
    if not path.exists():
        raise SchemaRouterError(f"{path}: no catalog of size {size}; run `sr generate` first")
    catalog = Catalog.model_validate_json(path.read_text(encoding="utf-8"))
    if catalog.size != size or len(catalog.endpoints) != size:
        raise SchemaRouterError(
            f"{path}: declares size {catalog.size} with {len(catalog.endpoints)} endpoints, expected {size}"
        )
    return catalog
