"""The items a state field can hold, each checked as the boundary requires: registered-name tokens,
JSON types, unit triples and stable identifiers. Every check refuses a forbidden item under the
installed guard, so no spelling of a gold name, a condition or a rank rides in as an item.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any, Final, TypeAlias, TypeGuard

from pydantic import BaseModel, ConfigDict, Field

from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONValue
from runtime.state.contract import JSON_TYPES, is_identifier, is_name, is_unit
from runtime.state.errors import ContractViolation
from runtime.state.guard import StateGuard, forbidden_item_in, installed_guard


class UnitTriple(FrozenModel):
    """Unit, dimension and qualifier of an observed output field that carries a unit."""

    model_config = ConfigDict(strict=True)

    unit: str = Field(description="Unit symbol, e.g. degC.")
    dimension: str | None = Field(description="Dimension, e.g. temperature, or null.")
    qualifier: str | None = Field(description="Qualifier, e.g. daily_max, or null.")


class StableIdentifier(FrozenModel):
    """A stable identifier produced by a completed tool; the value matches the identifier pattern."""

    model_config = ConfigDict(strict=True)

    semantic_id: str = Field(description="Semantic ID of the output field that produced it.")
    value: str = Field(description="The identifier, verbatim.")


# An item of a checked state field: a name token (or JSON type), a unit triple or a stable identifier.
StateItem: TypeAlias = str | UnitTriple | StableIdentifier
# What is offered to a check, a field's value or one item of it: JSON (a state file), or what a typed
# transition derived (the field's tuple so far, a name, a ``{unit, dimension, qualifier}`` or
# ``{semantic_id, value}`` object, or an item already checked).
RawValue: TypeAlias = "JSONValue | UnitTriple | StableIdentifier | tuple[RawValue, ...]"


def check_name(item: RawValue, path: str) -> str:
    """``item`` as a single registered-name token that carries no forbidden item."""
    guard = installed_guard()
    if guard is not None and type(item) is str and _accepted_name(guard, item):
        return item
    if not isinstance(item, str) or not is_name(item):
        raise ContractViolation(f"{item!r} is not a single registered name token", path=path)
    found = forbidden_item_in(item)
    if found is not None:
        raise ContractViolation(f"{item!r} carries forbidden item {found}", item=found, path=path)
    return item


@lru_cache(maxsize=65536)
def _accepted_name(guard: StateGuard, item: str) -> bool:
    """``check_name`` passes ``item`` under ``guard`` (a state repeats its names after every turn)."""
    return is_name(item) and guard.forbidden_item_in(item) is None


def check_json_type(item: RawValue, path: str) -> str:
    if item not in JSON_TYPES:
        raise ContractViolation(f"{item!r} is not a JSON type", path=path)
    return str(item)


def check_unit(value: RawValue, path: str) -> UnitTriple:
    if type(value) is UnitTriple:  # frozen: checked as it is, and kept (an equal triple)
        _unit_parts(value.unit, value.dimension, value.qualifier, path)
        return value
    if isinstance(value, UnitTriple):
        value = value.model_dump()
    if not isinstance(value, Mapping) or set(value) != {"unit", "dimension", "qualifier"}:
        raise ContractViolation("a unit entry is exactly {unit, dimension, qualifier}", path=path)
    unit, dimension, qualifier = _unit_parts(value["unit"], value["dimension"], value["qualifier"], path)
    return UnitTriple(unit=unit, dimension=dimension, qualifier=qualifier)


def _unit_parts(
    unit: RawValue, dimension: RawValue, qualifier: RawValue, path: str
) -> tuple[str, str | None, str | None]:
    """The parts of a unit triple, checked (in this order) and returned as they are."""
    if not isinstance(unit, str) or not is_unit(unit):
        raise ContractViolation(f"{unit!r} is not a unit symbol", path=f"{path}.unit")
    dimension = None if dimension is None else check_name(dimension, f"{path}.dimension")
    qualifier = None if qualifier is None else check_name(qualifier, f"{path}.qualifier")
    return unit, dimension, qualifier


def unit_order(u: UnitTriple) -> tuple[tuple[bool, str], tuple[bool, str], tuple[bool, str]]:
    def part(v: str | None) -> tuple[bool, str]:
        return (v is not None, v or "")

    return (part(u.dimension), part(u.unit), part(u.qualifier))


def check_identifier(value: RawValue, path: str) -> StableIdentifier:
    if type(value) is StableIdentifier:  # frozen: checked as it is, and kept (an equal identifier)
        _identifier_parts(value.semantic_id, value.value, path)
        return value
    if isinstance(value, StableIdentifier):
        value = value.model_dump()
    if not isinstance(value, Mapping) or set(value) != {"semantic_id", "value"}:
        raise ContractViolation("a stable identifier is exactly {semantic_id, value}", path=path)
    semantic_id, text = _identifier_parts(value["semantic_id"], value["value"], path)
    return StableIdentifier(semantic_id=semantic_id, value=text)


def _identifier_parts(semantic_id: RawValue, value: RawValue, path: str) -> tuple[str, str]:
    """The parts of a stable identifier, checked (in this order) and returned as they are."""
    name = check_name(semantic_id, f"{path}.semantic_id")
    if not isinstance(value, str) or not is_identifier(value):
        raise ContractViolation(f"{value!r} does not match the identifier pattern", path=f"{path}.value")
    return name, value


def identifier_order(s: StableIdentifier) -> tuple[str, str]:
    return (s.semantic_id, s.value)


def accepted_names(values: Iterable[RawValue]) -> TypeGuard[Iterable[str]]:
    """Whether every element of ``values`` is a string ``check_name`` passes under the installed
    guard (the common case, checked without building a path per element)."""
    guard = installed_guard()
    return guard is not None and all(type(x) is str and _accepted_name(guard, x) for x in values)


class Item:
    """One kind of item: how it is checked, ordered in a set (None: as itself), and written as JSON."""

    __slots__ = ("check", "code", "names", "order")

    def __init__(
        self,
        code: str,
        check: Callable[[RawValue, str], StateItem],
        order: Callable[[Any], tuple[object, ...]] | None = None,
    ) -> None:
        self.code, self.check, self.order = code, check, order
        self.names = check is check_name

    def dump(self, item: StateItem) -> JSONValue:
        return item.model_dump() if isinstance(item, BaseModel) else item


# The items of contract field types (``type.items``), in the order the contract schema lists them.
ITEMS: Final[dict[str, Item]] = {
    "route_id": Item("route_id", check_name),
    "field_name": Item("field_name", check_name),
    "semantic_id": Item("semantic_id", check_name),
    "json_type": Item("json_type", check_json_type),
    "unit_triple": Item("unit_triple", check_unit, unit_order),
    "identifier": Item("identifier", check_identifier, identifier_order),
}
