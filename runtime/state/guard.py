"""Finds forbidden contract items anywhere in data offered to the state boundary.

A forbidden item is recognised by its ID or any of its aliases (spec/state_contract.yaml), compared
after normalising case and separators (``Gold-Next.Route`` reads as ``gold_next_route``):

- as a key at any depth;
- as a whole string value at any depth (a value equal to a forbidden key);
- inside a string value, for the multi-word IDs and aliases (``x.gold_plan.v1`` carries ``gold_plan``).

Single-word aliases (``rank``, ``world``, ...) are matched whole only: as parts of longer names they
are ordinary words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from schemarouter.runtime.state.contract import FORBIDDEN
from schemarouter.runtime.state.errors import ContractViolation

_separators = re.compile(r"[^a-z0-9]+")


def normalise(text: str) -> str:
    """Lower case, every run of non-alphanumerics as one underscore, no leading/trailing underscore."""
    return _separators.sub("_", text.lower()).strip("_")


_WHOLE: dict[str, str] = {}
_MULTI_WORD: dict[str, str] = {}
for _item, _aliases in FORBIDDEN.items():
    for _term in (_item, *_aliases):
        _WHOLE[normalise(_term)] = _item
        if "_" in normalise(_term):
            _MULTI_WORD[normalise(_term)] = _item


def forbidden_item_in(text: str) -> str | None:
    """The forbidden contract item ``text`` names or carries, if any."""
    norm = normalise(text)
    if norm in _WHOLE:
        return _WHOLE[norm]
    padded = f"_{norm}_"
    for term, item in _MULTI_WORD.items():
        if f"_{term}_" in padded:
            return item
    return None


def reject_forbidden(value: Any, path: str = "") -> None:
    """Raise ContractViolation if a forbidden item appears anywhere in ``value`` (keys or strings)."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            where = f"{path}.{key}" if path else str(key)
            if not isinstance(key, str):
                raise ContractViolation(f"non-string key {key!r}", path=where)
            item = forbidden_item_in(key)
            if item is not None:
                raise ContractViolation(f"key {key!r} carries forbidden item {item}", item=item, path=where)
            reject_forbidden(inner, where)
    elif isinstance(value, list | tuple | set | frozenset):
        for i, inner in enumerate(value):
            reject_forbidden(inner, f"{path}[{i}]")
    elif isinstance(value, str):
        item = forbidden_item_in(value)
        if item is not None:
            raise ContractViolation(f"value {value!r} carries forbidden item {item}", item=item, path=path)
