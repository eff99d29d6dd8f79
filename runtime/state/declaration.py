"""A contract's allowed fields as plain, hashable data: what the installed guard vocabulary carries.

``declarations(contract)`` reads them from a compiled contract (a model) or a parsed one (a mapping):
each field's name, its ``type`` as sorted pairs (``values_from`` resolved to the named list's values,
as compile does) and the source it names, if any. ``layout.layout_of`` resolves them into kinds and
sources; this module imports nothing of the boundary, so the guard can carry them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from runtime.core.json_value import JSONValue
from runtime.state.compiled_view import StateContractView

# A value of a field's declared ``type``: a word (``kind``, ``items``, ``values_from``) or its values,
# as parsed (a list) or as held in a declaration (a tuple, so that the declaration hashes).
TypeValue: TypeAlias = "JSONValue | tuple[JSONValue, ...]"
# (name, type as sorted (key, value) pairs, the source the field names or None)
FieldDeclaration: TypeAlias = tuple[str, tuple[tuple[str, TypeValue], ...], str | None]


def resolved_type(
    declared: Mapping[str, TypeValue], lists: Mapping[str, TypeValue] | None
) -> dict[str, TypeValue]:
    """A field's ``type`` with ``values_from`` replaced by the named contract list's values."""
    origin = declared.get("values_from")
    if origin is not None and declared.get("values") is None and lists is not None:
        values = lists.get(str(origin))
        if isinstance(values, list | tuple):
            declared = {**declared, "values": list(values)}
    return {k: v for k, v in declared.items() if v is not None and k != "values_from"}


def declarations(contract: StateContractView | Mapping[str, JSONValue]) -> tuple[FieldDeclaration, ...]:
    """The allowed fields of a compiled contract (a model) or a parsed one (a mapping), in order."""
    # The parsed contract is a user's data, walked as such (a compiled one was checked at compile).
    raw: Mapping[str, Any] = contract if isinstance(contract, Mapping) else contract.model_dump(mode="json")
    lists = {k: v for k, v in raw.items() if isinstance(v, list | tuple)}
    found = []
    for entry in raw.get("allowed", ()):
        declared = resolved_type(dict(entry.get("type") or {}), lists)
        pairs = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in declared.items()))
        found.append((str(entry.get("name")), pairs, entry.get("source")))
    return tuple(found)
