"""A contract's state fields, resolved: each field's name, kind and source, in the contract's order.

``field_problems(entry)`` says why one ``allowed`` entry of a state contract does not resolve (an
unknown kind, an unknown or missing source, a kind that cannot hold its source); the compiler reports
them at the entry's line (SC113, SC114, SC115) and ``layout_of`` refuses the same. ``ObservableState``
has exactly the fields of the installed contract's layout, in its order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from runtime.state.declaration import FieldDeclaration, resolved_type
from runtime.state.errors import ContractViolation
from runtime.state.kinds import Kind, kind_of, kind_problem
from runtime.state.sources import SOURCES, Source, source_code


@dataclass(frozen=True)
class StateField:
    """One field of observable state: its name, its kind and the typed fact it is derived from."""

    name: str
    kind: Kind
    source: Source


@dataclass(frozen=True)
class StateLayout:
    """The fields of observable state, in the contract's order (the rest is derived from them once:
    every state hashes its layout, and the guard looks fields up by source on every transition)."""

    fields: tuple[StateField, ...]
    positions: dict[str, int] = field(init=False, compare=False, repr=False)
    set_names: tuple[str, ...] = field(init=False, compare=False, repr=False)
    by_source: dict[str, int] = field(init=False, compare=False, repr=False)
    digest: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        derived = {
            "positions": {f.name: i for i, f in enumerate(self.fields)},
            "set_names": tuple(f.name for f in self.fields if f.kind.shape == "set"),
            "by_source": {f.source.code: i for i, f in reversed(list(enumerate(self.fields)))},
            "digest": hash(self.fields),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    def __hash__(self) -> int:
        return self.digest

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    def position(self, name: str) -> int:
        return self.positions[name]

    def with_source(self, code: str) -> StateField | None:
        """The first field derived from source ``code``, or None when the contract declares none."""
        position = self.by_source.get(code)
        return None if position is None else self.fields[position]

    def source_position(self, code: str) -> int | None:
        """The position of the first field derived from source ``code``, or None."""
        return self.by_source.get(code)


@dataclass(frozen=True)
class FieldProblem:
    """Why a contract field does not resolve: ``what`` says which check (kind, source, holds)."""

    what: Literal["kind", "source", "holds"]
    key: str  # the entry's key the problem is at: type, source or name
    message: str


def field_problems(entry: Mapping[str, Any], lists: Mapping[str, Any] | None = None) -> list[FieldProblem]:
    """Why one ``allowed`` entry does not resolve (empty when it does). ``lists``: the contract's own
    lists, for ``values_from``."""
    name, declared = entry.get("name"), entry.get("type")
    declared = dict(declared) if isinstance(declared, Mapping) else {}
    declared = resolved_type(declared, lists)
    problems = []
    kind_text = kind_problem(declared)
    if kind_text is not None:
        problems.append(FieldProblem("kind", "type", kind_text))
    code = source_code(str(name), entry.get("source"))
    if code is None:
        problems.append(FieldProblem("source", "name", f"state field {name!r} names no source ({_known()})"))
        return problems
    source = SOURCES.get(code)
    if source is None:
        where = "source" if entry.get("source") is not None else "name"
        problems.append(FieldProblem("source", where, f"{code!r} is not a state field source ({_known()})"))
        return problems
    if kind_text is None:
        holds = _holds_problem(kind_of(declared), source)
        if holds is not None:
            problems.append(FieldProblem("holds", "type", holds))
    return problems


def _known() -> str:
    return "known: " + ", ".join(SOURCES)


def _holds_problem(kind: Kind, source: Source) -> str | None:
    if kind.key not in source.holds:
        return (
            f"kind {kind.key} cannot hold source {source.code} ({source.origin}; it is held by "
            f"{', '.join(source.holds)})"
        )
    if source.values is not None and set(kind.values or ()) != set(source.values):
        return (
            f"the values {list(kind.values or ())} cannot hold source {source.code}, which takes exactly "
            f"{list(source.values)}"
        )
    return None


def layout_of(fields: Iterable[FieldDeclaration]) -> StateLayout:
    """The layout of these declared fields; a field that does not resolve raises ContractViolation."""
    return _layout(tuple(fields))


@lru_cache(maxsize=64)
def _layout(fields: tuple[FieldDeclaration, ...]) -> StateLayout:
    resolved = []
    for name, pairs, source in fields:
        entry = {"name": name, "type": dict(pairs), "source": source}
        problems = field_problems(entry)
        if problems:
            raise ContractViolation(f"state field {name!r}: {problems[0].message}", path=name)
        code = source_code(name, source)
        resolved.append(StateField(name, kind_of(dict(pairs)), SOURCES[str(code)]))
    names = [f.name for f in resolved]
    if len(set(names)) != len(names):
        raise ContractViolation(f"the contract names a state field twice: {names}")
    return StateLayout(tuple(resolved))
