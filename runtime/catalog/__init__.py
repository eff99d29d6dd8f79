"""Tool catalogs: typed endpoints (registered routes) and their rendering to model-facing schemas."""

from runtime.catalog.io import dump_catalog, load_catalog
from runtime.catalog.model import Catalog, Endpoint, FieldSpec, SideEffect

__all__ = ["Catalog", "Endpoint", "FieldSpec", "SideEffect", "dump_catalog", "load_catalog"]
