"""Finds forbidden contract items anywhere in data offered to the state boundary.

A forbidden item is recognised by its ID or any of its aliases (spec/state_contract.yaml), compared
after normalising case and separators (``Gold-Next.Route`` reads as ``gold_next_route``):

- as a key at any depth;
- as a whole string value at any depth (a value equal to a forbidden key);
- inside a string value, for the multi-word IDs and aliases (``x.gold_plan.v1`` carries ``gold_plan``)
  and for the research condition IDs (``SR-5-STATE-AWARE`` is the condition's name).

Single-word aliases (``rank``, ``world``, ...) are matched whole only: as parts of longer names they
are ordinary words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from schemarouter.runtime.state.contract import CONDITION_NAMES, FORBIDDEN
from schemarouter.runtime.state.errors import ContractViolation

_separators = re.compile(r"[^a-z0-9]+")


def normalise(text: str) -> str:
    """Lower case, every run of non-alphanumerics as one underscore, no leading/trailing underscore."""
    return _separators.sub("_", text.lower()).strip("_")


_WHOLE: dict[str, str] = {}
_INSIDE: dict[str, str] = {}
for _item, _aliases in FORBIDDEN.items():
    for _term in (_item, *_aliases):
        _WHOLE[normalise(_term)] = _item
        if "_" in normalise(_term):
            _INSIDE[normalise(_term)] = _item
for _name in CONDITION_NAMES:
    _WHOLE[normalise(_name)] = _INSIDE[normalise(_name)] = "condition_name"
# One pass over the padded value finds any multi-word term bounded by separators.
_inside_re = re.compile("_(" + "|".join(sorted(map(re.escape, _INSIDE), key=len, reverse=True)) + ")_")


@lru_cache(maxsize=65536)
def forbidden_item_in(text: str) -> str | None:
    """The forbidden contract item ``text`` names or carries, if any."""
    norm = normalise(text)
    if norm in _WHOLE:
        return _WHOLE[norm]
    match = _inside_re.search(f"_{norm}_")
    return _INSIDE[match.group(1)] if match else None


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
