"""Reading a state file a person wrote (``sr retrieve --state``): checked, positioned, partial allowed.

A state file is input, so it gets everything the boundary does and more:

1. it is read with ``runtime.core.safe_json`` (UTF-8, nesting depth, over-long integers, duplicate
   keys, NaN, lone surrogates);
2. the contract's set fields may be left out and default to empty, as a person writes one by hand; the
   others (0.14's ``last_execution_status``, ``last_error_class``, ``task_incomplete``) are required;
3. the data passes the guard and the contract exactly as engine-built state does;
4. with a ``Vocabulary``, every route ID, field name, semantic ID and unit triple must be registered in
   the catalog for the field's source (a missing input's semantic ID among the inputs): an
   unregistered name or a free-text token never reaches the retriever.

Every problem is one ``SchemaRouterError`` line, ``file:line:col: ...``, at the offending value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from runtime.catalog.model import Catalog
from runtime.core import safe_json
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONValue
from runtime.state.errors import ContractViolation
from runtime.state.model import ObservableState, installed_layout, with_set_defaults


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

    def check(self, data: JSONValue) -> None:
        """Raise ContractViolation at the first name of ``data`` (the contract's field order) that the
        catalog does not register for the field's source. ``data`` is state JSON the guard accepted."""
        if not isinstance(data, Mapping):
            raise ContractViolation(f"state must be an object, not {type(data).__name__}")
        for f in installed_layout().fields:
            registry = f.source.registry
            if registry is None or f.name not in data:
                continue
            value = data[f.name]
            if f.kind.shape == "optional":
                self._check_one(registry, value, f.name)
            elif isinstance(value, list | tuple):  # the guard accepted it: a set is a list
                for i, item in enumerate(value):
                    self._check_one(registry, item, f"{f.name}[{i}]")

    def _check_one(self, registry: str, item: JSONValue, path: str) -> None:
        if item is None:
            return
        if isinstance(item, dict) and registry == "units":
            triple = (item["unit"], item["dimension"], item["qualifier"])
            if triple not in self.units:
                raise ContractViolation(
                    f"unit {triple} is not a registered output unit of the catalog", path=path
                )
            return
        if isinstance(item, dict) and registry == "identifiers":
            item, path = item["semantic_id"], f"{path}.semantic_id"
            registry = "semantic_ids"
        registered: frozenset[str] = getattr(self, registry)
        if item not in registered:
            raise ContractViolation(
                f"{item!r} is not a registered {_WHAT[registry]} of the catalog", path=path
            )


_WHAT = {
    "route_ids": "route ID",
    "field_names": "output field name",
    "semantic_ids": "semantic ID",
    "input_semantic_ids": "input semantic ID",
}


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
        data = with_set_defaults(data)
        state = ObservableState.model_validate(data)
        if vocabulary is not None:
            vocabulary.check(data)
    except ContractViolation as err:
        line, column = safe_json.position_of(text, safe_json.parse_path(err.path))
        raise SchemaRouterError(f"{shown}:{line}:{column}: {err}") from None
    return state
