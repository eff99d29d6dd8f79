"""A contract's allowed fields as plain, hashable data: what the installed guard vocabulary carries.

``declarations(contract)`` reads them from a compiled contract (a model) or a parsed one (a mapping):
each field's name, its ``type`` as sorted pairs (``values_from`` resolved to the named list's values,
as compile does) and the source it names, if any. ``layout.layout_of`` resolves them into kinds and
sources; this module imports nothing of the boundary, so the guard can carry them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# (name, type as sorted (key, value) pairs, the source the field names or None)
FieldDeclaration = tuple[str, tuple[tuple[str, Any], ...], str | None]


def resolved_type(declared: Mapping[str, Any], lists: Mapping[str, Any] | None) -> dict[str, Any]:
    """A field's ``type`` with ``values_from`` replaced by the named contract list's values."""
    origin = declared.get("values_from")
    if origin is not None and declared.get("values") is None and lists is not None:
        values = lists.get(str(origin))
        if isinstance(values, list | tuple):
            declared = {**declared, "values": list(values)}
    return {k: v for k, v in declared.items() if v is not None and k != "values_from"}


def declarations(contract: Any) -> tuple[FieldDeclaration, ...]:
    """The allowed fields of a compiled contract (a model) or a parsed one (a mapping), in order."""
    raw = contract.model_dump(mode="python") if hasattr(contract, "model_dump") else contract
    lists = {k: v for k, v in raw.items() if isinstance(v, list | tuple)}
    found = []
    for entry in raw.get("allowed", ()):
        declared = resolved_type(dict(entry.get("type") or {}), lists)
        pairs = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in declared.items()))
        found.append((str(entry.get("name")), pairs, entry.get("source")))
    return tuple(found)
