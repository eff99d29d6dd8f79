"""The items a state field can hold, each checked as the boundary requires: registered-name tokens,
JSON types, unit triples and stable identifiers. Every check refuses a forbidden item under the
installed guard, so no spelling of a gold name, a condition or a rank rides in as an item.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from runtime.core.frozen_model import FrozenModel
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


def check_name(item: Any, path: str) -> str:
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


def check_json_type(item: Any, path: str) -> str:
    if item not in JSON_TYPES:
        raise ContractViolation(f"{item!r} is not a JSON type", path=path)
    return str(item)


def check_unit(value: Any, path: str) -> UnitTriple:
    if type(value) is UnitTriple:  # frozen: checked as it is, and kept (an equal triple)
        _check_unit_parts(value.unit, value.dimension, value.qualifier, path)
        return value
    if isinstance(value, UnitTriple):
        value = value.model_dump()
    if not isinstance(value, Mapping) or set(value) != {"unit", "dimension", "qualifier"}:
        raise ContractViolation("a unit entry is exactly {unit, dimension, qualifier}", path=path)
    _check_unit_parts(value["unit"], value["dimension"], value["qualifier"], path)
    return UnitTriple(unit=value["unit"], dimension=value["dimension"], qualifier=value["qualifier"])


def _check_unit_parts(unit: Any, dimension: Any, qualifier: Any, path: str) -> None:
    if not isinstance(unit, str) or not is_unit(unit):
        raise ContractViolation(f"{unit!r} is not a unit symbol", path=f"{path}.unit")
    for part, value in (("dimension", dimension), ("qualifier", qualifier)):
        if value is not None:
            check_name(value, f"{path}.{part}")


def unit_order(u: UnitTriple) -> tuple[tuple[bool, str], tuple[bool, str], tuple[bool, str]]:
    def part(v: str | None) -> tuple[bool, str]:
        return (v is not None, v or "")

    return (part(u.dimension), part(u.unit), part(u.qualifier))


def check_identifier(value: Any, path: str) -> StableIdentifier:
    if type(value) is StableIdentifier:  # frozen: checked as it is, and kept (an equal identifier)
        _check_identifier_parts(value.semantic_id, value.value, path)
        return value
    if isinstance(value, StableIdentifier):
        value = value.model_dump()
    if not isinstance(value, Mapping) or set(value) != {"semantic_id", "value"}:
        raise ContractViolation("a stable identifier is exactly {semantic_id, value}", path=path)
    _check_identifier_parts(value["semantic_id"], value["value"], path)
    return StableIdentifier(semantic_id=value["semantic_id"], value=value["value"])


def _check_identifier_parts(semantic_id: Any, value: Any, path: str) -> None:
    check_name(semantic_id, f"{path}.semantic_id")
    if not isinstance(value, str) or not is_identifier(value):
        raise ContractViolation(f"{value!r} does not match the identifier pattern", path=f"{path}.value")


def identifier_order(s: StableIdentifier) -> tuple[str, str]:
    return (s.semantic_id, s.value)


def accepted_names(values: Any) -> bool:
    """Whether every element of ``values`` is a string ``check_name`` passes under the installed
    guard (the common case, checked without building a path per element)."""
    guard = installed_guard()
    return guard is not None and all(type(x) is str and _accepted_name(guard, x) for x in values)


class Item:
    """One kind of item: how it is checked, ordered in a set (None: as itself), and written as JSON."""

    __slots__ = ("check", "code", "names", "order")

    def __init__(
        self, code: str, check: Callable[[Any, str], Any], order: Callable[[Any], Any] | None = None
    ) -> None:
        self.code, self.check, self.order = code, check, order
        self.names = check is check_name

    def dump(self, item: Any) -> Any:
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
