"""The importer registry: one importer per source format, each under a stable code.

An importer is a class with a ``code`` and an ``import_catalog`` method, registered with
``@register_importer``. Codes are stable (they name a source format in catalog files and on the
command line) and are never reused for another format.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, Protocol, TypeVar

from schemarouter.errors import SchemaRouterError
from schemarouter.runtime.catalog.importers.options import ImportOptions
from schemarouter.runtime.catalog.importers.source import SourceFile
from schemarouter.runtime.catalog.model import Catalog


class Importer(Protocol):
    """Turns one parsed source file into a catalog, or raises one ``ImportProblem`` line per problem."""

    code: ClassVar[str]

    def import_catalog(self, source: SourceFile, options: ImportOptions) -> Catalog: ...


_IMPORTERS: dict[str, type[Importer]] = {}

T = TypeVar("T", bound=type[Importer])


def register_importer(code: str) -> Callable[[T], T]:
    """Class decorator: register an importer under ``code`` (once)."""

    def register(cls: T) -> T:
        if code in _IMPORTERS:
            raise ValueError(f"importer code {code!r} is already registered")
        cls.code = code
        _IMPORTERS[code] = cls
        return cls

    return register


def importer_codes() -> tuple[str, ...]:
    """The registered codes, sorted."""
    _load_builtin()
    return tuple(sorted(_IMPORTERS))


def importer_for(code: str) -> Importer:
    """A new importer of the format ``code``."""
    _load_builtin()
    cls = _IMPORTERS.get(code)
    if cls is None:
        raise SchemaRouterError(
            f"--from {code}: no importer of that name; importers: {', '.join(sorted(_IMPORTERS))}"
        )
    return cls()


def _load_builtin() -> None:
    # Each module registers its importer on import.
    from schemarouter.runtime.catalog.importers import (  # noqa: F401
        mcp_tools,
        openai_tools,
        openapi,
    )
