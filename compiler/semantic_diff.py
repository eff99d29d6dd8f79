"""Say what changed between two versions of a spec file's data, one line per change.

``state_contract.allowed: field "foo" added``, ``gates.criteria[G1].threshold: -0.02 -> -0.05``,
``experiment.bootstrap.seed: 20260929 -> 1``. Lists of records are matched by their id (``id``,
``name`` or ``code``), so an insertion reads as one added item, not as every later item changing.
Values compare by their canonical JSON, so ``1`` and ``1.0`` are equal but ``true`` and ``1`` are not.
"""

from __future__ import annotations

import json
from typing import Any

from compiler.canonical import jcs

IDENTITY_KEYS = ("id", "name", "code")
SHORT_VALUE = 80

# What an item of a list is called in messages; any other list says "item".
ITEM_NOUNS = {
    "state_contract.allowed": "field",
    "state_contract.forbidden": "forbidden item",
    "conditions.conditions": "condition",
    "strata.strata": "stratum",
    "metrics.metrics": "metric",
    "gates.criteria": "criterion",
    "experiment.languages": "language",
}


def short(value: Any) -> str:
    """A value as compact JSON, cut to SHORT_VALUE characters."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))
    return text if len(text) <= SHORT_VALUE else text[: SHORT_VALUE - 1] + "…"


def _same(old: Any, new: Any) -> bool:
    return jcs(old) == jcs(new)


def _identity_key(old: list[Any], new: list[Any]) -> str | None:
    items = [*old, *new]
    if not items or not all(isinstance(item, dict) for item in items):
        return None
    for key in IDENTITY_KEYS:
        if all(isinstance(item.get(key), str) for item in items) and all(
            len({item[key] for item in side}) == len(side) for side in (old, new)
        ):
            return key
    return None


def describe_changes(old: Any, new: Any, prefix: str) -> list[str]:
    """Every change from ``old`` to ``new``, paths starting at ``prefix`` (the file's name)."""
    lines: list[str] = []
    _diff(old, new, prefix, lines)
    return lines


def _diff(old: Any, new: Any, path: str, lines: list[str]) -> None:
    if _same(old, new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            child = f"{path}.{key}"
            if key not in old:
                lines.append(f"{child}: added {short(new[key])}")
            elif key not in new:
                lines.append(f"{child}: removed (was {short(old[key])})")
            else:
                _diff(old[key], new[key], child, lines)
    elif isinstance(old, list) and isinstance(new, list):
        _diff_list(old, new, path, lines)
    else:
        lines.append(f"{path}: {short(old)} -> {short(new)}")


def _diff_list(old: list[Any], new: list[Any], path: str, lines: list[str]) -> None:
    key = _identity_key(old, new)
    if key is not None:
        _diff_by_identity(old, new, key, path, lines)
        return
    if _diff_distinct_scalars(old, new, path, lines):
        return
    if len(old) == len(new):
        for index, (old_item, new_item) in enumerate(zip(old, new, strict=True)):
            _diff(old_item, new_item, f"{path}[{index}]", lines)
        return
    lines.append(f"{path}: {short(old)} -> {short(new)}")


def _diff_by_identity(old: list[Any], new: list[Any], key: str, path: str, lines: list[str]) -> None:
    """Items matched by their identity key: removed, added, each kept one compared, then the order."""
    noun = ITEM_NOUNS.get(path, "item")
    old_by_id = {item[key]: item for item in old}
    new_by_id = {item[key]: item for item in new}
    for item_id in old_by_id:
        if item_id not in new_by_id:
            lines.append(f'{path}: {noun} "{item_id}" removed')
    for item_id in new_by_id:
        if item_id not in old_by_id:
            lines.append(f'{path}: {noun} "{item_id}" added')
    for item_id in old_by_id:
        if item_id in new_by_id:
            _diff(old_by_id[item_id], new_by_id[item_id], f"{path}[{item_id}]", lines)
    kept_old = [i for i in old_by_id if i in new_by_id]
    kept_new = [i for i in new_by_id if i in old_by_id]
    if kept_old != kept_new:
        lines.append(f"{path}: order changed")


def _diff_distinct_scalars(old: list[Any], new: list[Any], path: str, lines: list[str]) -> bool:
    """Lists of distinct scalars compared as sets, then the order; False (nothing said) otherwise."""
    if not all(not isinstance(v, dict | list) for v in [*old, *new]):
        return False
    old_set, new_set = [jcs(v) for v in old], [jcs(v) for v in new]
    if len(set(old_set)) != len(old_set) or len(set(new_set)) != len(new_set):
        return False
    for value, canonical in zip(old, old_set, strict=True):
        if canonical not in new_set:
            lines.append(f"{path}: {short(value)} removed")
    for value, canonical in zip(new, new_set, strict=True):
        if canonical not in old_set:
            lines.append(f"{path}: {short(value)} added")
    if [c for c in old_set if c in new_set] != [c for c in new_set if c in old_set]:
        lines.append(f"{path}: order changed")
    return True
