"""Finds forbidden contract items anywhere in data offered to the state boundary.

A forbidden item is recognised by its ID or any of its aliases (spec/state_contract.yaml). Text is
folded before it is compared, so spelling does not hide a term:

- Unicode compatibility forms and case: NFKC, then casefold (``ＧＯＬＤ`` reads as ``gold``), and the
  common Cyrillic and Greek look-alikes of Latin letters (``gоld`` with a Cyrillic ``о``);
- camelCase and letter/digit boundaries split words (``goldNextRoute`` reads as ``gold_next_route``,
  ``expectedAnswer74`` as ``expected_answer_74``);
- every run of other characters is one separator (``Gold-Next.Route`` reads as ``gold_next_route``),
  and forms without separators are caught too (``nextroute`` is ``next_route``).

Where a term is found:

- as a key at any depth, or as a whole string value at any depth;
- inside a string value, for the multi-word IDs and aliases (``x.gold_plan.v1`` carries
  ``gold_plan``), with or without separators;
- the research condition IDs and their distinctive parts (``SR-5-STATE-AWARE``, ``SR5STATEAWARE``,
  ``STATE-AWARE``, ``PROGRESSIVE-STATIC``) inside any value, and the condition codes (``C3``) as a
  whole value;
- a single-word alias (``rank``, ``score``, ``answer`` ...) followed only by numbers and filler words
  (``score:0.93``, ``rank.1``, ``answer_is_74``): a value smuggled into a name.

Single-word aliases are otherwise matched whole only: as parts of longer names they are ordinary words
(``position_accuracy``, ``world_region``). Every registered name of the catalogs passes this guard
(tests/test_state_catalog.py pins it).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from schemarouter.runtime.state.contract import CONDITION_NAMES, FORBIDDEN
from schemarouter.runtime.state.errors import ContractViolation

# The condition codes of spec/conditions.yaml (C1 ... C5); a test compares them with the spec.
CONDITION_CODES: tuple[str, ...] = ("C1", "C2", "C3", "C4", "C5")
# Parts of the research condition IDs that name a condition on their own.
CONDITION_PARTS: tuple[str, ...] = ("STATE-AWARE", "PROGRESSIVE-STATIC")
# Words that may join a single-word alias to the value it smuggles: ``answer_is_74``.
_FILLER = frozenset({"is", "eq", "equals", "was", "of", "at", "value", "val", "top", "no", "num", "nr"})

# Latin look-alikes that NFKC does not fold (Cyrillic and Greek letters used in spoofed names).
_CONFUSABLES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
        "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d",
        "ɡ": "g", "ԛ": "q", "ԝ": "w", "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k",
        "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ℓ": "l", "ı": "i",
    }
)  # fmt: skip
_camel = re.compile(
    r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])"
)
_separators = re.compile(r"[^a-z0-9]+")


def fold(text: str) -> str:
    """NFKC, look-alike letters to Latin, camelCase split, then lower case (casefold)."""
    text = unicodedata.normalize("NFKC", text).translate(_CONFUSABLES)
    text = _camel.sub("_", text)
    return text.casefold().translate(_CONFUSABLES)


def normalise(text: str) -> str:
    """Folded, every run of non-alphanumerics as one underscore, no leading/trailing underscore."""
    return _separators.sub("_", fold(text)).strip("_")


def _squash(norm: str) -> str:
    return norm.replace("_", "")


_WHOLE: dict[str, str] = {}
_INSIDE: dict[str, str] = {}
_SINGLE: dict[str, str] = {}
for _item, _aliases in FORBIDDEN.items():
    for _term in (_item, *_aliases):
        _norm = normalise(_term)
        _WHOLE[_norm] = _WHOLE[_squash(_norm)] = _item
        if "_" in _norm:
            _INSIDE[_norm] = _item
        else:
            _SINGLE[_norm] = _item
for _name in (*CONDITION_NAMES, *CONDITION_PARTS):
    _norm = normalise(_name)
    _WHOLE[_norm] = _WHOLE[_squash(_norm)] = _INSIDE[_norm] = "condition_name"
for _code in CONDITION_CODES:
    _WHOLE[normalise(_code)] = "condition_name"
# One pass over the padded value finds any multi-word term bounded by separators; a second over the
# squashed value finds the same terms written without separators.
_inside_re = re.compile("_(" + "|".join(sorted(map(re.escape, _INSIDE), key=len, reverse=True)) + ")_")
_SQUASHED = {_squash(term): item for term, item in _INSIDE.items()}
_squashed_re = re.compile("|".join(sorted(map(re.escape, _SQUASHED), key=len, reverse=True)))


@lru_cache(maxsize=65536)
def forbidden_item_in(text: str) -> str | None:
    """The forbidden contract item ``text`` names or carries, if any."""
    norm = normalise(text)
    if norm in _WHOLE:
        return _WHOLE[norm]
    squashed = _squash(norm)
    if squashed in _WHOLE:
        return _WHOLE[squashed]
    match = _inside_re.search(f"_{norm}_")
    if match:
        return _INSIDE[match.group(1)]
    found = _squashed_re.search(squashed)
    if found:
        return _SQUASHED[found.group(0)]
    words = norm.split("_")
    if words[0] in _SINGLE and len(words) > 1:
        rest = words[1:]
        if all(w.isdigit() or w in _FILLER for w in rest) and any(w.isdigit() for w in rest):
            return _SINGLE[words[0]]
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
