"""Finds forbidden contract items anywhere in data offered to the state boundary.

A forbidden item is recognised by its ID or any of its aliases, as the compiled experiment's state
contract states them (``GuardVocabulary.from_compiled``; nothing of any experiment is pinned here). Text is
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
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from runtime.state.compiled_view import CompiledView
from runtime.state.declaration import FieldDeclaration, declarations
from runtime.state.errors import ContractViolation

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


@dataclass(frozen=True)
class GuardVocabulary:
    """What the guard refuses, read from the compiled experiment (never pinned in code).

    ``forbidden``: each forbidden item's id and aliases (state_contract.yaml). ``condition_names``: the
    research conditions, those that retrieve (conditions.yaml ``retrieval_query`` other than ``none``);
    FULL and ORACLE are ordinary words, caught only as keys. ``condition_parts``: the distinctive
    multi-word remainder of each research id once its family prefix is dropped (leading tokens that
    are numbers or at most two characters: ``SR-5-``), so ``STATE-AWARE`` and ``PROGRESSIVE-STATIC``;
    a one-word remainder such as ``STATIC`` is an ordinary word. ``condition_codes``: every
    condition's code (``C3``), refused as a whole value. ``fields``: the contract's allowed fields (name,
    type, source), from which ``ObservableState`` takes its fields and their order (``layout.py``).
    """

    forbidden: tuple[tuple[str, tuple[str, ...]], ...]
    condition_names: tuple[str, ...]
    condition_codes: tuple[str, ...]
    fields: tuple[FieldDeclaration, ...] = ()  # the contract's allowed fields, in order (layout.py)

    @property
    def condition_parts(self) -> tuple[str, ...]:
        parts = []
        for name in self.condition_names:
            words = name.split("-")
            while words and (len(words[0]) <= 2 or words[0].isdigit()):
                words = words[1:]
            if len(words) >= 2:
                parts.append("-".join(words))
        return tuple(parts)

    @classmethod
    def from_compiled(cls, compiled: CompiledView) -> GuardVocabulary:
        """From a CompiledSpec: its state contract's forbidden items and its conditions."""
        return cls(
            forbidden=tuple((f.id, tuple(f.aliases)) for f in compiled.state_contract.forbidden),
            condition_names=tuple(c.id for c in compiled.conditions if c.retrieval_query != "none"),
            condition_codes=tuple(c.code for c in compiled.conditions),
            fields=declarations(compiled.state_contract),
        )


class StateGuard:
    """Finds the vocabulary's forbidden items in text (see the module docs for how)."""

    def __init__(self, vocabulary: GuardVocabulary) -> None:
        self.vocabulary = vocabulary
        whole: dict[str, str] = {}
        inside: dict[str, str] = {}
        single: dict[str, str] = {}
        for item, aliases in vocabulary.forbidden:
            for term in (item, *aliases):
                norm = normalise(term)
                whole[norm] = whole[_squash(norm)] = item
                if "_" in norm:
                    inside[norm] = item
                else:
                    single[norm] = item
        for name in (*vocabulary.condition_names, *vocabulary.condition_parts):
            norm = normalise(name)
            whole[norm] = whole[_squash(norm)] = inside[norm] = "condition_name"
        for code in vocabulary.condition_codes:
            whole[normalise(code)] = "condition_name"
        self._whole, self._inside, self._single = whole, inside, single
        # One pass over the padded value finds any multi-word term bounded by separators; a second over
        # the squashed value finds the same terms written without separators.
        self._inside_re = _alternation(inside, "_(", ")_")
        self._squashed = {_squash(term): item for term, item in inside.items()}
        self._squashed_re = _alternation(self._squashed, "(", ")")
        self.forbidden_item_in = lru_cache(maxsize=65536)(self._forbidden_item_in)

    def _forbidden_item_in(self, text: str) -> str | None:
        """The forbidden contract item ``text`` names or carries, if any."""
        norm = normalise(text)
        if norm in self._whole:
            return self._whole[norm]
        squashed = _squash(norm)
        if squashed in self._whole:
            return self._whole[squashed]
        match = self._inside_re.search(f"_{norm}_") if self._inside_re else None
        if match:
            return self._inside[match.group(1)]
        found = self._squashed_re.search(squashed) if self._squashed_re else None
        if found:
            return self._squashed[found.group(0)]
        words = norm.split("_")
        if words[0] in self._single and len(words) > 1:
            rest = words[1:]
            if all(w.isdigit() or w in _FILLER for w in rest) and any(w.isdigit() for w in rest):
                return self._single[words[0]]
        return None


def _alternation(terms: Mapping[str, str], head: str, tail: str) -> re.Pattern[str] | None:
    if not terms:
        return None
    return re.compile(head + "|".join(sorted(map(re.escape, terms), key=len, reverse=True)) + tail)


_GUARDS: dict[GuardVocabulary, StateGuard] = {}
_active: StateGuard | None = None


def install_guard(vocabulary: GuardVocabulary) -> StateGuard:
    """Make ``vocabulary`` the one the state boundary enforces in this process (the engine, and every
    command that reads a state, install the compiled experiment's before building any state)."""
    global _active
    guard = _GUARDS.get(vocabulary)
    if guard is None:
        guard = _GUARDS[vocabulary] = StateGuard(vocabulary)
    _active = guard
    return guard


def install_from_compiled(compiled: CompiledView) -> StateGuard:
    return install_guard(GuardVocabulary.from_compiled(compiled))


def installed_guard() -> StateGuard | None:
    """The guard install_guard made active, or None (active_guard raises instead)."""
    return _active


def active_guard() -> StateGuard:
    if _active is None:
        raise ContractViolation(
            "no state contract is installed: state is built only under a compiled experiment's contract"
        )
    return _active


def forbidden_item_in(text: str) -> str | None:
    """The forbidden contract item ``text`` names or carries, under the installed contract."""
    return active_guard().forbidden_item_in(text)


def reject_forbidden(value: Any, path: str = "") -> None:
    """Raise ContractViolation if a forbidden item appears anywhere in ``value`` (keys or strings)."""
    if _carries_forbidden(value):
        _reject_forbidden_at(value, path)


def _carries_forbidden(value: Any) -> bool:
    """Whether ``_reject_forbidden_at`` would raise: the same walk, without building the path of every
    element (only a refusal needs one, and the second walk names it)."""
    stack = [value]
    find = None  # the installed guard's lookup, fetched at the first string (as forbidden_item_in does)
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            find = find or active_guard().forbidden_item_in
            if find(item) is not None:
                return True
        elif kind is tuple or kind is list:
            stack.extend(item)
        elif kind is dict or isinstance(item, Mapping):
            for key in item:
                if not isinstance(key, str):
                    return True
                find = find or active_guard().forbidden_item_in
                if find(key) is not None:
                    return True
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        elif isinstance(item, str):
            find = find or active_guard().forbidden_item_in
            if find(item) is not None:
                return True
    return False


def _reject_forbidden_at(value: Any, path: str) -> None:
    if isinstance(value, Mapping):
        for key, inner in value.items():
            where = f"{path}.{key}" if path else str(key)
            if not isinstance(key, str):
                raise ContractViolation(f"non-string key {key!r}", path=where)
            item = forbidden_item_in(key)
            if item is not None:
                raise ContractViolation(f"key {key!r} carries forbidden item {item}", item=item, path=where)
            _reject_forbidden_at(inner, where)
    elif isinstance(value, list | tuple | set | frozenset):
        for i, inner in enumerate(value):
            _reject_forbidden_at(inner, f"{path}[{i}]")
    elif isinstance(value, str):
        item = forbidden_item_in(value)
        if item is not None:
            raise ContractViolation(f"value {value!r} carries forbidden item {item}", item=item, path=path)
