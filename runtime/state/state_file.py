"""Reading a state file a person wrote (``sr retrieve --state``): checked, positioned, partial allowed.

A state file is input, so it gets everything the boundary does and more:

1. it is read with ``schemarouter.safe_json`` (UTF-8, nesting depth, over-long integers, duplicate
   keys, NaN, lone surrogates);
2. the six list fields may be left out and default to empty, as a person writes one by hand; the other
   three (``last_execution_status``, ``last_error_class``, ``task_incomplete``) are required;
3. the data passes the guard and the contract exactly as engine-built state does;
4. with a ``Vocabulary``, every route ID, field name, semantic ID and unit triple must be registered in
   the catalog: an unregistered name or a free-text token never reaches the retriever.

Every problem is one ``SchemaRouterError`` line, ``file:line:col: ...``, at the offending value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemarouter import safe_json
from schemarouter.errors import SchemaRouterError
from schemarouter.runtime.catalog.model import Catalog
from schemarouter.runtime.state.errors import ContractViolation
from schemarouter.runtime.state.model import LIST_FIELDS, ObservableState


@dataclass(frozen=True)
class Vocabulary:
    """The names a catalog registers for its outputs: what observable state can ever hold."""

    route_ids: frozenset[str]
    field_names: frozenset[str]
    semantic_ids: frozenset[str]
    units: frozenset[tuple[str, str | None, str | None]]
    input_semantic_ids: frozenset[str] = frozenset()  # what a MISSING_INPUT refusal can name

    @classmethod
    def of(cls, catalog: Catalog) -> Vocabulary:
        outputs = [f for endpoint in catalog.endpoints for f in endpoint.outputs]
        return cls(
            route_ids=frozenset(e.route_id for e in catalog.endpoints),
            field_names=frozenset(f.name for f in outputs),
            semantic_ids=frozenset(f.semantic_id for f in outputs),
            units=frozenset((f.unit, f.dimension, f.qualifier) for f in outputs if f.unit is not None),
            input_semantic_ids=frozenset(f.semantic_id for e in catalog.endpoints for f in e.inputs),
        )

    def check(self, data: Mapping[str, Any]) -> None:
        """Raise ContractViolation at the first name of ``data`` (state-file order) not registered."""
        names: tuple[tuple[str, frozenset[str], str], ...] = (
            ("executed_route_ids", self.route_ids, "route ID"),
            ("observed_field_names", self.field_names, "output field name"),
            ("observed_semantic_ids", self.semantic_ids, "semantic ID"),
        )
        attempted = data.get("last_attempted_route_id")
        if attempted is not None and attempted not in self.route_ids:
            raise ContractViolation(
                f"{attempted!r} is not a registered route ID of the catalog", path="last_attempted_route_id"
            )
        names += (("missing_input_semantic_ids", self.input_semantic_ids, "input semantic ID"),)
        for key, registered, what in names:
            for i, name in enumerate(data.get(key, ())):
                if name not in registered:
                    raise ContractViolation(
                        f"{name!r} is not a registered {what} of the catalog", path=f"{key}[{i}]"
                    )
        for i, unit in enumerate(data.get("observed_units", ())):
            triple = (unit["unit"], unit["dimension"], unit["qualifier"])
            if triple not in self.units:
                raise ContractViolation(
                    f"unit {triple} is not a registered output unit of the catalog",
                    path=f"observed_units[{i}]",
                )
        for i, identifier in enumerate(data.get("stable_identifiers", ())):
            if identifier["semantic_id"] not in self.semantic_ids:
                raise ContractViolation(
                    f"{identifier['semantic_id']!r} is not a registered semantic ID of the catalog",
                    path=f"stable_identifiers[{i}].semantic_id",
                )


def with_list_defaults(data: Any) -> Any:
    """``data`` with each missing list field set to an empty list (non-objects are returned as they are)."""
    if not isinstance(data, dict):
        return data
    return {**{key: [] for key in LIST_FIELDS if key not in data}, **data}


def read_state_file(
    path: Path, *, display: str | None = None, vocabulary: Vocabulary | None = None
) -> ObservableState:
    """The state in the file at ``path``; any problem is one ``file:line:col:`` SchemaRouterError."""
    shown = display or str(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise SchemaRouterError(f"{shown}: cannot read the state file ({err.strerror})") from None
    try:
        data = safe_json.loads(raw)
    except safe_json.JsonTextError as err:
        raise SchemaRouterError(f"{shown}:{err.line}:{err.column}: not a state file: {err.message}") from None
    text = raw.decode("utf-8")
    try:
        data = with_list_defaults(data)
        state = ObservableState.model_validate(data)
        if vocabulary is not None:
            vocabulary.check(data)
    except ContractViolation as err:
        line, column = safe_json.position_of(text, safe_json.parse_path(err.path))
        raise SchemaRouterError(f"{shown}:{line}:{column}: {err}") from None
    return state
