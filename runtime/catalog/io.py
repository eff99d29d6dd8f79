"""Reading and writing catalog files: ``catalogs/catalog_<size>.json``.

The file is the ``Catalog`` model as JSON (sorted keys, endpoints sorted by route_id, two-space
indent, UTF-8, trailing newline), so regenerating it is byte-identical.

A catalog's digest is ``sha256:`` and the hex sha256 of that exact text (the file's bytes): traces name
the catalog they exposed routes from by it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from runtime.catalog.model import Catalog
from runtime.core.content_memo import ContentMemo
from runtime.core.errors import SchemaRouterError


def catalog_path(catalogs_dir: Path, size: int) -> Path:
    return Path(catalogs_dir) / f"catalog_{size}.json"


def dump_catalog(catalog: Catalog) -> str:
    """The exact text of a catalog file."""
    data = catalog.model_dump(mode="json")
    # The provenance of imported catalogs is left out when absent, so generated catalogs keep their bytes.
    if data.get("source") is None:
        data.pop("source", None)
    for endpoint in data["endpoints"]:
        for part in (endpoint, *endpoint["inputs"], *endpoint["outputs"]):
            if not part.get("derived"):
                part.pop("derived", None)
    return json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1) + "\n"


def catalog_digest(catalog: Catalog) -> str:
    """The digest of the catalog's file text (what :func:`load_catalog_with_digest` returns for its file)."""
    return _digest(dump_catalog(catalog).encode("utf-8"))


def _digest(raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw).hexdigest()


# The catalogs of the last few files read, by their exact bytes (runtime/core/content_memo.py): the
# nested catalogs of one experiment and the surfaces' catalogs a freeze or a test process rereads.
_PARSED: ContentMemo[bytes, Catalog] = ContentMemo(maxsize=8)


def load_catalog(catalogs_dir: Path, size: int) -> Catalog:
    """The catalog of ``size`` endpoints from ``catalogs_dir`` (run ``sr generate`` to create it)."""
    return load_catalog_with_digest(catalogs_dir, size)[0]


def load_catalog_with_digest(catalogs_dir: Path, size: int) -> tuple[Catalog, str]:
    """The catalog and the digest of its file's bytes."""
    path = catalog_path(catalogs_dir, size)
    if not path.exists():
        raise SchemaRouterError(f"{path}: no catalog of size {size}; run `sr generate` first")
    raw = path.read_bytes()
    catalog = _PARSED.get(raw, lambda: Catalog.model_validate_json(raw.decode("utf-8")))
    if catalog.size != size or len(catalog.endpoints) != size:
        raise SchemaRouterError(
            f"{path}: declares size {catalog.size} with {len(catalog.endpoints)} endpoints, expected {size}"
        )
    return catalog, _digest(raw)


def load_catalog_file(path: Path) -> tuple[Catalog, str]:
    """Any catalog file (generated or imported, e.g. by ``sr catalog import``) and its digest.

    Problems are one line each: a file that cannot be read, is not JSON, or is not a catalog.
    """
    from pydantic import ValidationError

    from runtime.core import safe_json

    try:
        raw = path.read_bytes()
    except OSError as err:
        raise SchemaRouterError(f"{path}: cannot read the catalog file ({err.strerror or err})") from None
    try:
        safe_json.loads(raw)
    except safe_json.JsonTextError as err:
        raise SchemaRouterError(
            f"{path}:{err.line}:{err.column}: not a catalog file: {err.message}"
        ) from None
    try:
        catalog = Catalog.model_validate_json(raw)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        more = f" (and {err.error_count() - 1} more problems)" if err.error_count() > 1 else ""
        raise SchemaRouterError(f"{path}: not a catalog file: {where}: {first['msg']}{more}") from None
    if catalog.size != len(catalog.endpoints):
        raise SchemaRouterError(
            f"{path}: declares size {catalog.size} with {len(catalog.endpoints)} endpoints"
        )
    routes = [e.route_id for e in catalog.endpoints]
    if routes != sorted(set(routes)):
        raise SchemaRouterError(f"{path}: endpoints must be sorted by route_id, without duplicates")
    return catalog, _digest(raw)
