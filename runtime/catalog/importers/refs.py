"""``$ref`` resolution inside one document, with the ``referencing`` library (jsonschema's own).

Only references within the document (``#/...``) are supported: another file or a URL is refused, as
is a reference that points nowhere or a chain of references that loops. ``find_dangling`` checks every
``$ref`` of the document first, so a broken one is reported at the operation that holds it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from referencing import Registry, Resource
from referencing.exceptions import PointerToNowhere, Unresolvable

from runtime.catalog.importers.schema_fields import BrokenReference, Unsupported
from runtime.core.json_value import JSONValue

_BASE = "urn:schemarouter:import-source"
Path = tuple[str | int, ...]


class RefResolver:
    """Follows ``$ref`` chains in ``document``."""

    def __init__(self, document: Any) -> None:
        registry: Registry[Any] = Registry().with_resource(_BASE, Resource.opaque(document))
        self._resolver = registry.resolver(base_uri=_BASE)

    def target(self, ref: JSONValue) -> JSONValue:
        """The node ``ref`` points to; ``Unsupported`` naming the reference otherwise."""
        if not isinstance(ref, str):
            raise BrokenReference(f"$ref {ref!r} is not a string")
        if not ref.startswith("#"):
            raise BrokenReference(f"$ref {ref!r} points outside the document (only '#/...' is supported)")
        try:
            found: JSONValue = self._resolver.lookup(ref).contents  # a part of the (JSON) document
        except PointerToNowhere:
            raise BrokenReference(f"$ref {ref!r} does not resolve") from None
        except Unresolvable:
            raise BrokenReference(f"$ref {ref!r} cannot be resolved") from None
        except (TypeError, KeyError, IndexError, ValueError):  # a pointer through a null or a scalar
            raise BrokenReference(f"$ref {ref!r} does not resolve") from None
        return found

    def __call__(self, node: Any) -> Any:
        """``node`` with its ``$ref`` chain followed (a node without one is returned as it is)."""
        seen: list[str] = []
        while isinstance(node, Mapping) and "$ref" in node:
            ref = node["$ref"]
            if ref in seen:
                raise Unsupported(f"$ref {ref!r} refers back to itself through {' -> '.join(seen)}")
            seen.append(ref)
            node = self.target(ref)
        return node


def iter_refs(node: JSONValue, path: Path = ()) -> Iterator[tuple[Path, JSONValue]]:
    """Every ``$ref`` value in ``node`` with the path of the object holding it, in document order."""
    if isinstance(node, Mapping):
        if "$ref" in node:
            yield path, node["$ref"]
        for key, value in node.items():
            if key != "$ref":
                yield from iter_refs(value, (*path, str(key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from iter_refs(value, (*path, i))


def find_dangling(document: JSONValue, resolver: RefResolver) -> list[tuple[Path, str]]:
    """(path, problem) of every ``$ref`` that does not resolve."""
    problems = []
    for path, ref in iter_refs(document):
        try:
            resolver.target(ref)
        except Unsupported as err:
            problems.append((path, str(err)))
    return problems
