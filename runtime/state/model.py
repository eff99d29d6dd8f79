"""ObservableState: the only execution state the state-aware retriever may see.

Its fields are the installed contract's, in the contract's order (``layout.py``: each field's name,
its kind from ``kinds.py`` and the typed fact it is derived from, ``sources.py``); nothing about a
field is written here. 0.14's contract gives the nine fields of its preregistration, so its state
JSON is byte for byte what it was. A state is built from the typed parts of tool results and gate
refusals only: there is no parameter through which free text (``ToolResult.message``), gold data, a
condition name or a rank score/position could enter, and every way of constructing or copying a state
runs the same guard, which raises ``ContractViolation``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any, Literal, NoReturn, TypeAlias, overload

from runtime.core import safe_json
from runtime.core.json_value import JSONObject, JSONValue
from runtime.core.limits import STATE_SET_ITEMS, over_limit
from runtime.simulator.result import ToolResult
from runtime.state.errors import ContractViolation
from runtime.state.guard import StateGuard, active_guard, installed_guard, reject_forbidden
from runtime.state.items import RawValue, StableIdentifier, UnitTriple, check_name
from runtime.state.jcs import canonical_json
from runtime.state.kinds import DumpedValue, StateValue
from runtime.state.layout import StateField, StateLayout, layout_of
from runtime.state.sources import Refusal

__all__ = ["ObservableState", "RawState", "StableIdentifier", "UnitTriple", "installed_layout"]

# State data offered to the guard: parsed state JSON, or the fields a typed transition derived.
RawState: TypeAlias = Mapping[str, RawValue]


def installed_layout() -> StateLayout:
    """The fields of the installed contract (raises when none is installed)."""
    return layout_of(active_guard().vocabulary.fields)


class ObservableState:
    """Observable, typed execution state: the installed contract's fields, immutable."""

    __slots__ = ("_guard", "_hash", "_layout", "_values")
    _layout: StateLayout
    _values: tuple[StateValue, ...]
    _hash: int
    _guard: StateGuard | None  # the guard installed when the values were checked (see _derived)

    # ---- the only constructors ---------------------------------------------------------------

    @classmethod
    def initial(cls) -> ObservableState:
        """The state before any tool attempt."""
        layout = installed_layout()
        return cls._build(layout, {f.name: f.source.start for f in layout.fields})

    def after_result(self, result: ToolResult) -> ObservableState:
        """The state after the simulator executed ``result.route_id``; only typed parts are read."""
        if not isinstance(result, ToolResult):
            raise ContractViolation(f"after_result takes a ToolResult, not {type(result).__name__}")
        if result.status == "error" and result.error_class is None:
            raise ContractViolation("an error result must carry a typed error class", path="error_class")
        if result.status != "error" and result.error_class is not None:
            raise ContractViolation("an ok result cannot carry an error class", path="error_class")
        return self._derived(lambda f, value: f.source.on_result(value, result))

    def after_blocked(
        self, route_id: str | None, error_class: str, missing_semantic_ids: Iterable[str] = ()
    ) -> ObservableState:
        """The state after the gate blocked an attempt; the route was not executed and is not recorded
        as executed.

        ``route_id`` is the registered route the call resolved to, or None when the tool name matched no
        route: a name the model made up is model output and never enters the state, not even here.
        ``missing_semantic_ids``: the catalog's semantic IDs of the required inputs a MISSING_INPUT
        refusal named; they enter only a field derived from ``refusal.missing_inputs``.
        """
        if route_id is not None:
            check_name(route_id, "route_id")
        refusal = Refusal(route_id, error_class, tuple(missing_semantic_ids))
        return self._derived(lambda f, value: f.source.on_refusal(value, refusal))

    def with_task_incomplete(self, flag: bool) -> ObservableState:
        """The same state with the engine's deterministic task-incomplete flag set (in the fields
        derived from ``engine.task_incomplete``; a contract without one has nothing to set)."""
        if not isinstance(flag, bool):
            raise ContractViolation(f"task_incomplete must be a bool, not {type(flag).__name__}")
        return self._derived(lambda f, value: flag if f.source.code == "engine.task_incomplete" else value)

    @classmethod
    def from_json(cls, text: str | bytes) -> ObservableState:
        """Parse state JSON (e.g. a file for ``sr retrieve --state``), read by ``safe_json`` (duplicate
        keys, NaN, deep nesting, over-long integers, non-UTF-8 bytes are refused). The set fields may be
        left out and default to empty; the others are required."""
        try:
            raw = safe_json.loads(text)
        except safe_json.JsonTextError as err:
            raise ContractViolation(f"not JSON: {err}") from None
        return cls.model_validate(with_set_defaults(raw))

    @classmethod
    def model_validate(cls, obj: RawValue | RawState | ObservableState, **kwargs: Any) -> ObservableState:
        """Raw state data checked against the installed contract (an ObservableState is returned as it
        is)."""
        if isinstance(obj, ObservableState):
            return obj
        layout = installed_layout()
        return cls._make(layout, _guarded(obj, layout))

    def __init__(self, **data: RawValue) -> None:
        layout = installed_layout()
        values = _guarded(data, layout)
        object.__setattr__(self, "_layout", layout)
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_hash", hash((layout, values)))
        object.__setattr__(self, "_guard", installed_guard())

    # ---- reading -----------------------------------------------------------------------------

    @property
    def layout(self) -> StateLayout:
        """The contract fields this state has, in order."""
        return self._layout

    def value_of(self, source: str) -> StateValue:
        """The value of the first field derived from ``source``, or None when the contract has none."""
        found = self._layout.with_source(source)
        return None if found is None else self._values[self._layout.position(found.name)]

    def __getattr__(self, name: str) -> Any:
        try:
            layout = object.__getattribute__(self, "_layout")
        except AttributeError:
            raise AttributeError(name) from None
        position = layout.positions.get(name)
        if position is None:
            raise AttributeError(f"the installed state contract has no field {name!r}")
        return object.__getattribute__(self, "_values")[position]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ObservableState):
            return NotImplemented
        return self._layout == other._layout and self._values == other._values

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.name}={v!r}" for f, v in zip(self._layout.fields, self._values, strict=True))
        return f"ObservableState({inner})"

    # ---- serialization -------------------------------------------------------------------------

    def canonical_json(self) -> str:
        """RFC 8785 canonical JSON: the exact text the state-aware retriever appends to the query."""
        return _canonical_text(self._layout, self)

    @overload
    def model_dump(self, *, mode: Literal["json"]) -> JSONObject: ...

    @overload
    def model_dump(self, *, mode: str = "python") -> dict[str, DumpedValue]: ...

    def model_dump(self, *, mode: str = "python") -> JSONObject | dict[str, DumpedValue]:
        """The contract's fields in its order (``mode="json"``: lists; otherwise tuples)."""
        pairs = zip(self._layout.fields, self._values, strict=True)
        if mode == "json":
            return {f.name: f.kind.dump(v, json_mode=True) for f, v in pairs}
        return {f.name: f.kind.dump(v, json_mode=False) for f, v in pairs}

    # ---- every other way in is closed ----------------------------------------------------------

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **kwargs: Any) -> NoReturn:
        raise ContractViolation("use ObservableState.from_json (it rejects duplicate keys)")

    @classmethod
    def model_validate_strings(cls, obj: RawValue | RawState, **kwargs: Any) -> NoReturn:
        raise ContractViolation("string-coercing validation is not a way into state")

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: RawValue) -> NoReturn:
        raise ContractViolation("model_construct skips validation and is not a way into state")

    def model_copy(self, *, update: RawState | None = None, deep: bool = False) -> ObservableState:
        if update:
            raise ContractViolation("model_copy(update=...) skips validation; use the typed transitions")
        return self

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise ContractViolation(f"ObservableState is immutable (tried to set {name!r})")

    def __delattr__(self, name: str) -> NoReturn:
        raise ContractViolation(f"ObservableState is immutable (tried to delete {name!r})")

    def __copy__(self) -> ObservableState:
        return self  # immutable: a copy is the state itself

    def __deepcopy__(self, memo: dict[int, Any]) -> ObservableState:
        return self

    def __reduce__(self) -> NoReturn:
        raise ContractViolation("an ObservableState is not pickled: rebuild it from its state JSON")

    # ---- helpers -----------------------------------------------------------------------------

    def _derived(self, step: Callable[[StateField, StateValue], RawValue]) -> ObservableState:
        layout = self._layout
        raw = [step(f, v) for f, v in zip(layout.fields, self._values, strict=True)]
        guard = installed_guard()
        if guard is None or guard is not self._guard:
            return self._build(layout, {f.name: value for f, value in zip(layout.fields, raw, strict=True)})
        return self._make(layout, _guarded_step(layout, self._values, raw))

    @classmethod
    def _build(cls, layout: StateLayout, data: RawState) -> ObservableState:
        return cls._make(layout, _guarded(data, layout))

    @classmethod
    def _make(cls, layout: StateLayout, values: tuple[StateValue, ...]) -> ObservableState:
        state = object.__new__(cls)
        object.__setattr__(state, "_layout", layout)
        object.__setattr__(state, "_values", values)
        object.__setattr__(state, "_hash", hash((layout, values)))
        object.__setattr__(state, "_guard", installed_guard())
        return state


@lru_cache(maxsize=4096)
def _canonical_text(layout: StateLayout, state: ObservableState) -> str:
    # Keyed by the state's contract fields and the (immutable, hashable) state: equal values have equal
    # text under one contract, but not across contracts (a state with an empty field equals one of a
    # contract without it, and must not reuse that contract's text).
    return canonical_json(state.model_dump(mode="json"))


def with_set_defaults(data: JSONValue) -> JSONValue:
    """``data`` with each missing set field of the installed contract as an empty list (a state file
    a person writes may leave them out); non-objects are returned as they are."""
    if not isinstance(data, dict):
        return data
    sets = [f.name for f in installed_layout().fields if f.kind.shape == "set"]
    return {**{key: [] for key in sets if key not in data}, **data}


def _guarded(data: RawValue | RawState, layout: StateLayout) -> tuple[StateValue, ...]:
    """Raw state data checked against the contract's fields: each value normalised (sets sorted and
    unique), in the contract's order."""
    if not isinstance(data, Mapping):
        raise ContractViolation(f"state must be an object, not {type(data).__name__}")
    _check_set_sizes(data, layout)  # before any walk of the values
    reject_forbidden(data)
    names = layout.names
    keys = set(data)
    unknown, missing = sorted(keys - set(names)), [k for k in names if k not in keys]
    if unknown:
        raise ContractViolation(f"unknown state keys {unknown}; the contract allows exactly {list(names)}")
    if missing:
        starts = {f.name: f.kind.dump(f.source.start, json_mode=True) for f in layout.fields}
        example = json.dumps({key: starts[key] for key in missing})
        raise ContractViolation(f"missing state keys {missing}; for example {example}")
    values = tuple(f.kind.check(data[f.name], f.name, f.source.noun) for f in layout.fields)
    _check_together(layout, values)
    return values


def _guarded_step(
    layout: StateLayout, checked: tuple[StateValue, ...], raw: list[RawValue]
) -> tuple[StateValue, ...]:
    """What ``_guarded`` gives for ``raw``, a transition's fields, when ``checked`` (the state it steps
    from) passed the guard that is still installed: a field the step left as it was (the same object,
    or a tuple of the same item objects) is ``checked``'s value, already normalised and free of
    forbidden items; every other field is checked as ``_guarded`` checks it, in the same order (set
    sizes, forbidden items, kinds), and the fields are checked together as always. The keys are the
    layout's names by construction. tests/test_state_step_fast_path.py holds it to ``_guarded``."""
    fields = layout.fields
    changed = {i for i, (old, new) in enumerate(zip(checked, raw, strict=True)) if not _unchanged(old, new)}
    if not changed:
        return checked
    data = {fields[i].name: raw[i] for i in sorted(changed)}
    _check_set_sizes(data, layout)
    reject_forbidden(data)
    values = tuple(
        _checked_field(f, checked[i], raw[i]) if i in changed else checked[i] for i, f in enumerate(fields)
    )
    _check_together(layout, values)
    return values


def _checked_field(f: StateField, old: StateValue, new: RawValue) -> StateValue:
    """``new`` checked as ``_guarded`` checks it; a set that extends ``old`` by new items (the same item
    objects first, as an accumulating source derives it) has only those items checked."""
    if f.kind.shape == "set" and type(old) is tuple and type(new) is tuple and _extends(new, old):
        return f.kind.check_extension(old, new, f.name)
    return f.kind.check(new, f.name, f.source.noun)


def _extends(new: tuple[RawValue, ...], old: tuple[StateValue, ...]) -> bool:
    return len(new) >= len(old) and all(a is b for a, b in zip(new, old, strict=False))


def _unchanged(old: StateValue, new: RawValue) -> bool:
    """Whether ``new`` is ``old`` itself, or a tuple of exactly ``old``'s item objects in order."""
    if new is old:
        return True
    if type(new) is not tuple or type(old) is not tuple or len(new) != len(old):
        return False
    return all(a is b for a, b in zip(new, old, strict=True))


def _check_set_sizes(data: RawState, layout: StateLayout) -> None:
    for name in layout.set_names:
        value = data.get(name)
        if isinstance(value, list | tuple) and len(value) > STATE_SET_ITEMS:
            raise ContractViolation(
                f"the list has {over_limit('items', len(value), 'STATE_SET_ITEMS')}", path=name
            )


def _check_together(layout: StateLayout, values: tuple[StateValue, ...]) -> None:
    """What the sources imply of one another: a status of error or blocked has an error class and
    none or ok has none; missing inputs are named only by a MISSING_INPUT refusal."""
    error_at = layout.source_position("attempt.error_class")
    if error_at is None:
        return
    error, error_name = values[error_at], layout.fields[error_at].name
    status_at = layout.source_position("attempt.status")
    if status_at is not None:
        status = values[status_at]
        if status in ("error", "blocked") and error is None:
            raise ContractViolation(f"status {status} needs an error class", path=error_name)
        if status in ("none", "ok") and error is not None:
            raise ContractViolation(f"status {status} cannot carry an error class", path=error_name)
    missing_at = layout.source_position("refusal.missing_inputs")
    if missing_at is not None and values[missing_at] and error != "MISSING_INPUT":
        missing_name = layout.fields[missing_at].name
        raise ContractViolation("missing inputs are named only by a MISSING_INPUT refusal", path=missing_name)
