"""The importer registry: one importer per source format, each under a stable code.

An importer is a class with a ``code`` and an ``import_catalog`` method, registered with
``@register_importer``. Codes are stable (they name a source format in catalog files and on the
command line) and are never reused for another format.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Protocol, TypeVar

from runtime.catalog.importers.options import ImportOptions
from runtime.catalog.importers.source import SourceFile
from runtime.catalog.model import Catalog
from runtime.core.errors import SchemaRouterError
from runtime.core.registry import Registry


class Importer(Protocol):
    """Turns one parsed source file into a catalog, or raises one ``ImportProblem`` line per problem."""

    code: ClassVar[str]

    def import_catalog(self, source: SourceFile, options: ImportOptions) -> Catalog: ...


T = TypeVar("T", bound=type[Importer])

# The built-in importers are the modules of this package; installed packages add theirs through the
# ``schemarouter.importers`` entry points.
IMPORTERS: Registry[type[Importer]] = Registry(
    "importer",
    group="importers",
    package="runtime.catalog.importers",
    first=("mcp_tools", "openai_tools", "openapi"),
)


def register_importer(code: str) -> Callable[[T], T]:
    """Class decorator: register an importer under ``code`` (once)."""

    def register(cls: T) -> T:
        cls.code = code
        IMPORTERS.add(code, cls, module=cls.__module__)
        return cls

    return register


def importer_codes() -> tuple[str, ...]:
    """The registered codes, sorted."""
    return tuple(IMPORTERS.names())


def importer_for(code: str) -> Importer:
    """A new importer of the format ``code``."""
    if code not in IMPORTERS:
        raise SchemaRouterError(
            f"--from {code}: no importer of that name; importers: {', '.join(IMPORTERS.names())}"
        )
    return IMPORTERS.get(code)()
