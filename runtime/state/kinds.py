"""The closed vocabulary of state-field kinds: the shape of a field's value and how it is checked.

A contract field's ``type`` names its kind: ``{kind: set, items: route_id}`` (a sorted, unique set of
registered route IDs), ``{kind: optional, items: route_id}`` (one or null), ``{kind: count}`` (an
integer from 0 to ``STATE_COUNT``), ``{kind: enum, values: [...]}``, ``{kind: optional_enum, values:
[...]}`` (or ``values_from`` a contract list, resolved at compile) and ``{kind: boolean}``. The items
are those of ``items.ITEMS``. Nothing else is a kind: ``kind_problem`` says why a declared type is not
one, and ``sr validate`` refuses it (SC113).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias, cast, overload

from runtime.core.json_value import JSONValue
from runtime.core.limits import STATE_COUNT, STATE_SET_ITEMS, over_limit
from runtime.state.declaration import TypeValue
from runtime.state.errors import ContractViolation
from runtime.state.items import ITEMS, RawValue, StateItem, accepted_names

# A field's checked value: a set's sorted items, an optional item, a count, an enum value or a flag.
StateValue: TypeAlias = str | int | bool | StateItem | tuple[StateItem, ...] | None
# A field's value as state JSON (``json_mode``), or as Python data (a set's items as a tuple).
DumpedValue: TypeAlias = "JSONValue | tuple[JSONValue, ...]"

# The shapes a field's ``type.kind`` may name, with what else the type must (or must not) say.
SHAPES: Final[dict[str, str]] = {
    "set": "items",
    "optional": "items",
    "count": "",
    "enum": "values",
    "optional_enum": "values",
    "boolean": "",
}


@dataclass(frozen=True)
class Kind:
    """A field's kind: its shape, and its items (set, optional) or values (enum, optional_enum)."""

    shape: str
    items: str | None = None
    values: tuple[str, ...] | None = None

    @property
    def key(self) -> str:
        """``set:route_id``, ``optional:route_id``, ``count``, ``enum``, ... (what a source is held by)."""
        return f"{self.shape}:{self.items}" if self.items else self.shape

    def check(self, value: RawValue, path: str, noun: str) -> StateValue:
        """``value`` checked and normalised (a set sorted and unique); ``noun`` names what it is."""
        shape = self.shape
        if shape == "set":
            return self._set(value, path)
        if shape == "optional":
            return None if value is None else ITEMS[str(self.items)].check(value, path)
        if shape == "count":
            if type(value) is not int or value < 0:
                raise ContractViolation(f"{value!r} is not a count of {noun}", path=path)
            if value > STATE_COUNT:
                raise ContractViolation(over_limit(noun, value, "STATE_COUNT"), path=path)
            return value
        if shape == "boolean":
            if not isinstance(value, bool):
                raise ContractViolation(f"{path} must be a boolean", path=path)
            return value
        if value is None and shape == "optional_enum":
            return None
        if not isinstance(value, str) or value not in (self.values or ()):
            raise ContractViolation(f"{value!r} is not {noun}", path=path)
        return value

    def _set(self, value: RawValue, path: str) -> tuple[StateItem, ...]:
        if not isinstance(value, list | tuple):
            raise ContractViolation(f"expected a list, got {type(value).__name__}", path=path)
        if len(value) > STATE_SET_ITEMS:
            raise ContractViolation(
                f"the list has {over_limit('items', len(value), 'STATE_SET_ITEMS')}", path=path
            )
        item = ITEMS[str(self.items)]
        if item.names and accepted_names(value):
            return tuple(sorted(set(value)))
        checked = {item.check(x, f"{path}[{i}]") for i, x in enumerate(value)}
        if item.order is None:  # names and JSON types: strings, sorted as themselves
            return tuple(sorted(cast("set[str]", checked)))
        return tuple(sorted(checked, key=item.order))

    def check_extension(
        self, checked: tuple[StateItem, ...], value: tuple[RawValue, ...], path: str
    ) -> StateValue:
        """What ``check(value, path, ...)`` gives for a set ``value`` whose first items are ``checked``'s
        own objects, ``checked`` being a value this kind checked under the guard still installed: only
        the items after them are checked (a bad one named at its index in ``value``), and the set is
        built from the same items in the same order, so the result and every refusal are the same."""
        if len(value) > STATE_SET_ITEMS:
            raise ContractViolation(
                f"the list has {over_limit('items', len(value), 'STATE_SET_ITEMS')}", path=path
            )
        item = ITEMS[str(self.items)]
        start = len(checked)
        added = value[start:]
        if item.names and accepted_names(added):  # and ``checked``'s names were accepted under this guard
            return tuple(sorted({*cast("tuple[str, ...]", checked), *added}))
        items: set[StateItem] = set(checked)
        items.update(item.check(x, f"{path}[{start + i}]") for i, x in enumerate(added))
        if item.order is None:
            return tuple(sorted(cast("set[str]", items)))
        return tuple(sorted(items, key=item.order))

    def initial(self) -> StateValue:
        """The empty value of a set or optional (the others start where their source says)."""
        return () if self.shape == "set" else None

    @overload
    def dump(self, value: StateValue, *, json_mode: Literal[True]) -> JSONValue: ...

    @overload
    def dump(self, value: StateValue, *, json_mode: Literal[False]) -> DumpedValue: ...

    def dump(self, value: StateValue, *, json_mode: bool) -> DumpedValue:
        """``value`` as state JSON (``json_mode``: lists) or as Python data (tuples)."""
        if isinstance(value, tuple):  # a set's items (no other kind holds a tuple)
            item = ITEMS[str(self.items)]
            dumped = [item.dump(x) for x in value]
            return dumped if json_mode else tuple(dumped)
        if value is None or isinstance(value, str | int):
            return value
        return value.model_dump()  # an optional unit triple or stable identifier


def kind_problem(declared: Mapping[str, TypeValue]) -> str | None:
    """Why a contract field's ``type`` names no kind of this vocabulary, or None."""
    shape = declared.get("kind")
    if shape not in SHAPES:
        return f"{shape!r} is not a state field kind (known: {', '.join(SHAPES)})"
    needs = SHAPES[str(shape)]
    items, values = declared.get("items"), declared.get("values", declared.get("values_from"))
    if needs == "items" and items not in ITEMS:
        return f"kind {shape} holds items of {', '.join(ITEMS)}, not {items!r}"
    if needs != "items" and items is not None:
        return f"kind {shape} has no items (got {items!r})"
    if needs == "values" and not values:
        return f"kind {shape} needs its values"
    if needs != "values" and values is not None:
        return f"kind {shape} has no values"
    return None


def kind_of(declared: Mapping[str, TypeValue]) -> Kind:
    """The kind a valid ``type`` names (``kind_problem`` is None); enum values as declared."""
    items, values = declared.get("items"), declared.get("values")
    return Kind(
        shape=str(declared["kind"]),
        items=None if items is None else str(items),
        values=tuple(map(str, values)) if isinstance(values, list | tuple) else None,
    )
