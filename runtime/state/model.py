"""ObservableState: the only execution state the state-aware retriever may see.

It has the nine fields of 0.14's contract, plus those of ``contract.DECLARABLE_FIELDS`` that the
installed contract declares (a successor's: the typed facts of a gate refusal); an undeclared field is
neither accepted nor serialized, so 0.14's state JSON is byte for byte what it was. It is built from
the typed parts of tool results and gate refusals only. There is no parameter through which free
text (``ToolResult.message``), gold data, a condition name or a rank score/position could enter, and
every way of constructing or copying the model runs the same guard, which raises
``ContractViolation``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, ClassVar, NoReturn

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from schemarouter import safe_json
from schemarouter.runtime.catalog.model import JsonType
from schemarouter.runtime.simulator.result import ToolResult
from schemarouter.runtime.state.contract import (
    DECLARABLE_FIELDS,
    ERROR_CLASSES,
    EXECUTION_STATUSES,
    JSON_TYPES,
    STATE_FIELDS,
    ErrorClass,
    ExecutionStatus,
    is_identifier,
    is_name,
    is_unit,
)
from schemarouter.runtime.state.errors import ContractViolation
from schemarouter.runtime.state.guard import StateGuard, forbidden_item_in, installed_guard, reject_forbidden
from schemarouter.runtime.state.jcs import canonical_json


class UnitTriple(BaseModel):
    """Unit, dimension and qualifier of an observed output field that carries a unit."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    unit: str = Field(description="Unit symbol, e.g. degC.")
    dimension: str | None = Field(description="Dimension, e.g. temperature, or null.")
    qualifier: str | None = Field(description="Qualifier, e.g. daily_max, or null.")


class StableIdentifier(BaseModel):
    """A stable identifier produced by a completed tool; the value matches the identifier pattern."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    semantic_id: str = Field(description="Semantic ID of the output field that produced it.")
    value: str = Field(description="The identifier, verbatim.")


class ObservableState(BaseModel):
    """Observable, typed execution state (spec/state_contract.yaml, version 1)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    executed_route_ids: tuple[str, ...] = Field(
        description="Registered route IDs the gate allowed and the simulator executed; sorted, unique."
    )
    observed_field_names: tuple[str, ...] = Field(
        description="Names of output fields observed in completed results; sorted, unique."
    )
    observed_semantic_ids: tuple[str, ...] = Field(
        description="Semantic IDs of the observed output fields; sorted, unique."
    )
    observed_value_types: tuple[JsonType, ...] = Field(
        description="JSON types of the observed output values; sorted, unique."
    )
    observed_units: tuple[UnitTriple, ...] = Field(
        description="Unit triples of observed fields with a unit; sorted by (dimension, unit, qualifier)."
    )
    stable_identifiers: tuple[StableIdentifier, ...] = Field(
        description="Stable identifiers produced by completed tools; sorted by (semantic_id, value)."
    )
    last_execution_status: ExecutionStatus = Field(
        description="Status of the last tool attempt: none, ok, error or blocked."
    )
    last_error_class: ErrorClass | None = Field(
        description="Typed error class of the last attempt; null when it succeeded or nothing ran."
    )
    task_incomplete: bool = Field(
        description="True until the typed outputs the final answer needs have all been observed."
    )
    # Declarable fields (present in state JSON only when the installed contract declares them).
    last_attempted_route_id: str | None = Field(
        default=None,
        description="Declared only: the registered route ID of the last attempt (executed or blocked); "
        "null when nothing was attempted or the attempted name matched no route.",
    )
    missing_input_semantic_ids: tuple[str, ...] = Field(
        default=(),
        description="Declared only: semantic IDs of the required inputs the gate named missing in the "
        "last attempt's MISSING_INPUT refusal; sorted, unique; empty otherwise.",
    )
    attempt_count: int = Field(
        default=0, description="Declared only: tool attempts so far (executed or blocked)."
    )

    _fields_in_order: ClassVar[tuple[str, ...]] = STATE_FIELDS

    # ---- the only constructors ---------------------------------------------------------------

    @classmethod
    def initial(cls) -> ObservableState:
        """The state before any tool attempt."""
        return cls._build(
            executed_route_ids=(),
            observed_field_names=(),
            observed_semantic_ids=(),
            observed_value_types=(),
            observed_units=(),
            stable_identifiers=(),
            last_execution_status="none",
            last_error_class=None,
            task_incomplete=True,
            **{name: _INITIAL[name] for name in _declared()},
        )

    def after_result(self, result: ToolResult) -> ObservableState:
        """The state after the simulator executed ``result.route_id``; only typed parts are read."""
        if not isinstance(result, ToolResult):
            raise ContractViolation(f"after_result takes a ToolResult, not {type(result).__name__}")
        data = self._as_data()
        data["executed_route_ids"] = (*data["executed_route_ids"], result.route_id)
        data["last_execution_status"] = result.status
        if result.status == "error":
            if result.error_class is None:
                raise ContractViolation("an error result must carry a typed error class", path="error_class")
            data["last_error_class"] = result.error_class
        else:
            if result.error_class is not None:
                raise ContractViolation("an ok result cannot carry an error class", path="error_class")
            data["last_error_class"] = None
            _observe_fields(data, result)
        _record_attempt(data, result.route_id, ())
        return self._build(**data)

    def after_blocked(
        self, route_id: str | None, error_class: str, missing_semantic_ids: Iterable[str] = ()
    ) -> ObservableState:
        """The state after the gate blocked an attempt; the route was not executed and is not recorded
        as executed.

        ``route_id`` is the registered route the call resolved to, or None when the tool name matched no
        route: a name the model made up is model output and never enters the state, not even here.
        ``missing_semantic_ids``: the catalog's semantic IDs of the required inputs a MISSING_INPUT
        refusal named; they enter only a contract that declares ``missing_input_semantic_ids``.
        """
        if route_id is not None:
            _check_name(route_id, "route_id")
        data = self._as_data()
        data["last_execution_status"] = "blocked"
        data["last_error_class"] = error_class
        missing = tuple(missing_semantic_ids) if error_class == "MISSING_INPUT" else ()
        _record_attempt(data, route_id, missing)
        return self._build(**data)

    def with_task_incomplete(self, flag: bool) -> ObservableState:
        """The same state with the deterministic task-incomplete flag set."""
        if not isinstance(flag, bool):
            raise ContractViolation(f"task_incomplete must be a bool, not {type(flag).__name__}")
        data = self._as_data()
        data["task_incomplete"] = flag
        return self._build(**data)

    @classmethod
    def from_json(cls, text: str | bytes) -> ObservableState:
        """Parse state JSON (e.g. a file for ``sr retrieve --state``), read by ``safe_json`` (duplicate
        keys, NaN, deep nesting, over-long integers, non-UTF-8 bytes are refused). The six list fields
        may be left out and default to empty; the other three are required."""
        try:
            raw = safe_json.loads(text)
        except safe_json.JsonTextError as err:
            raise ContractViolation(f"not JSON: {err}") from None
        if isinstance(raw, dict):
            lists = (*LIST_FIELDS, *(k for k in _declared() if k == "missing_input_semantic_ids"))
            raw = {**{key: [] for key in lists if key not in raw}, **raw}
        return cls.model_validate(raw)

    # ---- serialization -------------------------------------------------------------------------

    def canonical_json(self) -> str:
        """RFC 8785 canonical JSON: the exact text the state-aware retriever appends to the query."""
        return _canonical_text(self)

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        """The contract's fields only: a declarable field the installed contract does not declare is
        left out (so 0.14's state JSON and traces keep their bytes)."""
        data = super().model_dump(**kwargs)
        for name in _undeclared():
            data.pop(name, None)
        return data

    # ---- every other way in runs the guard or is closed ------------------------------------------

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise _violation_from(err) from None

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> ObservableState:
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as err:
            raise _violation_from(err) from None

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kwargs: Any) -> NoReturn:
        raise ContractViolation("use ObservableState.from_json (it rejects duplicate keys)")

    @classmethod
    def model_validate_strings(cls, obj: Any, **kwargs: Any) -> NoReturn:
        raise ContractViolation("string-coercing validation is not a way into state")

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any) -> NoReturn:
        raise ContractViolation("model_construct skips validation and is not a way into state")

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> ObservableState:
        if update:
            raise ContractViolation("model_copy(update=...) skips validation; use the typed transitions")
        return self

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise ContractViolation(f"ObservableState is immutable (tried to set {name!r})")

    def __delattr__(self, name: str) -> NoReturn:
        raise ContractViolation(f"ObservableState is immutable (tried to delete {name!r})")

    @model_validator(mode="before")
    @classmethod
    def _guard(cls, data: Any) -> Any:
        if isinstance(data, ObservableState):
            return data
        return _guarded(data)

    # ---- helpers -----------------------------------------------------------------------------

    def _as_data(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in (*STATE_FIELDS, *_declared())}

    @classmethod
    def _build(cls, **data: Any) -> ObservableState:
        return cls.model_validate(data)


def _canonical_text(state: ObservableState) -> str:
    return _canonical_text_under(_declared(), state)


@lru_cache(maxsize=4096)
def _canonical_text_under(declared: tuple[str, ...], state: ObservableState) -> str:
    # Keyed by the installed contract's declared fields and the (frozen, hashable) state: equal states
    # have equal text under one contract, but not across contracts (a state with an empty declared
    # field equals one of a contract without it, and must not reuse that contract's text).
    return canonical_json(state.model_dump(mode="json"))


def _observe_fields(data: dict[str, Any], result: ToolResult) -> None:
    units, identifiers = list(data["observed_units"]), list(data["stable_identifiers"])
    for f in result.fields:
        data["observed_field_names"] = (*data["observed_field_names"], f.name)
        data["observed_semantic_ids"] = (*data["observed_semantic_ids"], f.semantic_id)
        data["observed_value_types"] = (*data["observed_value_types"], f.json_type)
        if f.unit is not None:
            units.append({"unit": f.unit, "dimension": f.dimension, "qualifier": f.qualifier})
        if f.stable_identifier and f.value is not None:
            # A null identifier (an unpaid order's charge_id, say) is no identifier: nothing to carry.
            identifiers.append({"semantic_id": f.semantic_id, "value": _identifier_value(f.value, f.name)})
    data["observed_units"], data["stable_identifiers"] = units, identifiers


def _identifier_value(value: Any, field_name: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not is_identifier(value):
        raise ContractViolation(
            f"stable identifier {value!r} does not match the identifier pattern", path=f"fields.{field_name}"
        )
    return value


def _declared() -> tuple[str, ...]:
    guard = installed_guard()
    return guard.vocabulary.declared_fields if guard is not None else ()


def _undeclared() -> tuple[str, ...]:
    declared = _declared()
    return tuple(name for name in DECLARABLE_FIELDS if name not in declared)


def _record_attempt(data: dict[str, Any], route_id: str | None, missing: tuple[str, ...]) -> None:
    """The declared facts of one attempt; nothing when the contract declares none (0.14)."""
    declared = _declared()
    if "last_attempted_route_id" in declared:
        data["last_attempted_route_id"] = route_id
    if "missing_input_semantic_ids" in declared:
        data["missing_input_semantic_ids"] = missing
    if "attempt_count" in declared:
        data["attempt_count"] = data["attempt_count"] + 1


# The six list fields, which a state file may leave out (empty), and the initial value of every field.
LIST_FIELDS: tuple[str, ...] = STATE_FIELDS[:6]
_INITIAL: dict[str, Any] = {
    **{key: [] for key in LIST_FIELDS},
    "last_execution_status": "none",
    "last_error_class": None,
    "task_incomplete": True,
    "last_attempted_route_id": None,
    "missing_input_semantic_ids": [],
    "attempt_count": 0,
}


def _guarded(data: Any) -> dict[str, Any]:
    """Check raw state data against the contract and return it normalised (sorted, unique tuples)."""
    if not isinstance(data, Mapping):
        raise ContractViolation(f"state must be an object, not {type(data).__name__}")
    reject_forbidden(data)
    fields = (*STATE_FIELDS, *_declared())
    keys = set(data)
    unknown, missing = sorted(keys - set(fields)), [k for k in fields if k not in keys]
    if unknown:
        raise ContractViolation(f"unknown state keys {unknown}; the contract allows exactly {list(fields)}")
    if missing:
        example = json.dumps({key: _INITIAL[key] for key in missing})
        raise ContractViolation(f"missing state keys {missing}; for example {example}")
    out: dict[str, Any] = {}
    for key in ("executed_route_ids", "observed_field_names", "observed_semantic_ids"):
        out[key] = tuple(sorted(set(_names(data[key], key))))
    types = _sequence(data["observed_value_types"], "observed_value_types")
    for i, t in enumerate(types):
        if t not in JSON_TYPES:
            raise ContractViolation(f"{t!r} is not a JSON type", path=f"observed_value_types[{i}]")
    out["observed_value_types"] = tuple(sorted(set(types)))
    units = {
        _unit(u, f"observed_units[{i}]")
        for i, u in enumerate(_sequence(data["observed_units"], "observed_units"))
    }
    out["observed_units"] = tuple(sorted(units, key=_unit_order))
    ids = {
        _identifier(x, f"stable_identifiers[{i}]")
        for i, x in enumerate(_sequence(data["stable_identifiers"], "stable_identifiers"))
    }
    out["stable_identifiers"] = tuple(sorted(ids, key=lambda s: (s.semantic_id, s.value)))
    status, error = data["last_execution_status"], data["last_error_class"]
    if status not in EXECUTION_STATUSES:
        raise ContractViolation(f"{status!r} is not an execution status", path="last_execution_status")
    if error is not None and error not in ERROR_CLASSES:
        raise ContractViolation(f"{error!r} is not a contract error class", path="last_error_class")
    if status in ("error", "blocked") and error is None:
        raise ContractViolation(f"status {status} needs an error class", path="last_error_class")
    if status in ("none", "ok") and error is not None:
        raise ContractViolation(f"status {status} cannot carry an error class", path="last_error_class")
    if not isinstance(data["task_incomplete"], bool):
        raise ContractViolation("task_incomplete must be a boolean", path="task_incomplete")
    out.update(last_execution_status=status, last_error_class=error, task_incomplete=data["task_incomplete"])
    out.update(_guarded_declared(data, _declared()))
    return out


def _guarded_declared(data: Mapping[str, Any], declared: tuple[str, ...]) -> dict[str, Any]:
    """The declared fields, checked as strictly as the nine: registered-name tokens, no free text,
    no forbidden item (reject_forbidden ran on the whole object first), a count that is a count."""
    out: dict[str, Any] = {}
    if "last_attempted_route_id" in declared:
        route = data["last_attempted_route_id"]
        if route is not None:
            _check_name(route, "last_attempted_route_id")
        out["last_attempted_route_id"] = route
    if "missing_input_semantic_ids" in declared:
        key = "missing_input_semantic_ids"
        out[key] = tuple(sorted(set(_names(data[key], key))))
        if out[key] and data["last_error_class"] != "MISSING_INPUT":
            raise ContractViolation("missing inputs are named only by a MISSING_INPUT refusal", path=key)
    if "attempt_count" in declared:
        count = data["attempt_count"]
        if type(count) is not int or count < 0:
            raise ContractViolation(f"{count!r} is not a count of attempts", path="attempt_count")
        out["attempt_count"] = count
    return out


def _sequence(value: Any, path: str) -> tuple[Any, ...]:
    if not isinstance(value, list | tuple):
        raise ContractViolation(f"expected a list, got {type(value).__name__}", path=path)
    return tuple(value)


def _names(value: Any, path: str) -> Iterable[str]:
    for i, item in enumerate(_sequence(value, path)):
        _check_name(item, f"{path}[{i}]")
        yield item


def _check_name(item: Any, path: str) -> None:
    guard = installed_guard()
    if guard is not None and type(item) is str and _accepted_name(guard, item):
        return
    if not isinstance(item, str) or not is_name(item):
        raise ContractViolation(f"{item!r} is not a single registered name token", path=path)
    found = forbidden_item_in(item)
    if found is not None:
        raise ContractViolation(f"{item!r} carries forbidden item {found}", item=found, path=path)


@lru_cache(maxsize=65536)
def _accepted_name(guard: StateGuard, item: str) -> bool:
    """``_check_name`` passes ``item`` under ``guard`` (a state repeats its names after every turn)."""
    return is_name(item) and guard.forbidden_item_in(item) is None


def _unit(value: Any, path: str) -> UnitTriple:
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
            _check_name(value, f"{path}.{part}")


def _unit_order(u: UnitTriple) -> tuple[tuple[bool, str], tuple[bool, str], tuple[bool, str]]:
    def part(v: str | None) -> tuple[bool, str]:
        return (v is not None, v or "")

    return (part(u.dimension), part(u.unit), part(u.qualifier))


def _identifier(value: Any, path: str) -> StableIdentifier:
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
    _check_name(semantic_id, f"{path}.semantic_id")
    if not isinstance(value, str) or not is_identifier(value):
        raise ContractViolation(f"{value!r} does not match the identifier pattern", path=f"{path}.value")


def _violation_from(err: ValidationError) -> ContractViolation:
    first = err.errors()[0]
    path = ".".join(str(p) for p in first.get("loc", ()))
    return ContractViolation(first.get("msg", str(err)), path=path)
