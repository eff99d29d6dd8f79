"""``build/compiled.json``: the compiled spec bundle the runtime reads, and how to load it.

The compiler writes it (``sr compile``); the runtime reads it with ``load_compiled`` and never imports
the compiler. The manifest carries its schema version, the compiler version, the freeze root (null for
a draft), the git commit and dirty flag, the digests of the source files, the typed core specs and the
raw parsed data of every spec file, so each area can parse its own file with its own model.

Its JSON Schema is checked in beside this module (``compiled_manifest.schema.json``, generated from
these models); changing a field's meaning means bumping ``MANIFEST_SCHEMA_VERSION``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Final, Literal, TypeVar

from pydantic import AwareDatetime, BaseModel, Field, ValidationError

from runtime.core import safe_json
from runtime.core.errors import SchemaRouterError
from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONObject
from runtime.spec_model.conditions import ConditionLimitsSpec, ConditionSpec
from runtime.spec_model.digest import Digest, FileDigest, GitState
from runtime.spec_model.experiment import ExperimentSpec
from runtime.spec_model.gates import GateCriterionSpec, GateSpec
from runtime.spec_model.metrics import MetricSpec
from runtime.spec_model.state_contract import StateContractSpec
from runtime.spec_model.strata import StratumSpec

MANIFEST_SCHEMA_VERSION: Final = 1
ModelT = TypeVar("ModelT", bound=BaseModel)


class FreezeRef(FrozenModel):
    """The freeze a compiled spec was verified against."""

    root: Digest = Field(description="Root hash of spec/freeze.lock.")
    frozen_at: AwareDatetime = Field(description="When that freeze was made (UTC).")
    reason: str = Field(description="The freeze's reason.")
    scoring_started: bool = Field(description="Whether a scored run had already started under the lock.")


class BuildInfo(FrozenModel):
    """How, from what, and under which freeze the bundle was compiled."""

    compiler_version: str = Field(description="schemarouter version of the compiler.")
    draft: bool = Field(description="True when there was no freeze lock; scoring refuses drafts.")
    freeze: FreezeRef | None = Field(description="The verified freeze; null for a draft.")
    git: GitState = Field(description="Git state at compile time.")
    sources: dict[str, FileDigest] = Field(
        description="Digest of every frozen file (spec/ and catalogs/) at compile time, by path."
    )


class CompiledSpec(FrozenModel):
    """The compiled spec bundle (the content of build/compiled.json)."""

    manifest_schema_version: Literal[1] = Field(description="Version of this manifest format.")
    build: BuildInfo = Field(description="Build provenance.")
    experiment: ExperimentSpec = Field(description="spec/experiment.yaml.")
    state_contract: StateContractSpec = Field(description="spec/state_contract.yaml.")
    conditions: tuple[ConditionSpec, ...] = Field(
        description="spec/conditions.yaml conditions, in spec order."
    )
    condition_limits: ConditionLimitsSpec = Field(description="spec/conditions.yaml limits.")
    tasks_per_cell: int = Field(description="spec/strata.yaml tasks per stratum x language cell.")
    strata: tuple[StratumSpec, ...] = Field(description="spec/strata.yaml strata, in spec order.")
    metrics: tuple[MetricSpec, ...] = Field(description="spec/metrics.yaml metrics, in spec order.")
    gate: GateSpec = Field(description="spec/gates.yaml.")
    raw: dict[str, Any] = Field(
        description="The parsed data of every spec file by name (experiment, conditions, retriever, ...). "
        "Treat as read-only; spec_data() returns a copy."
    )

    @property
    def draft(self) -> bool:
        """True when compiled without a freeze lock."""
        return self.build.draft

    @property
    def root_hash(self) -> str | None:
        """The freeze root's hex digest, or None for a draft."""
        return None if self.build.freeze is None else self.build.freeze.root.digest

    def condition(self, condition_id: str) -> ConditionSpec:
        """The condition with this id; SchemaRouterError if there is none."""
        return _find(self.conditions, "id", condition_id, "condition")

    def metric(self, metric_id: str) -> MetricSpec:
        """The metric with this id; SchemaRouterError if there is none."""
        return _find(self.metrics, "id", metric_id, "metric")

    def criterion(self, code: str) -> GateCriterionSpec:
        """The gate criterion with this code; SchemaRouterError if there is none."""
        return _find(self.gate.criteria, "code", code, "gate criterion")

    def spec_data(self, name: str) -> Any:
        """A deep copy of the parsed data of spec/<name>.yaml."""
        if name not in self.raw:
            raise SchemaRouterError(f"no spec file spec/{name}.yaml in the compiled spec")
        return copy.deepcopy(self.raw[name])

    def parse(self, name: str, model: type[ModelT]) -> ModelT:
        """spec/<name>.yaml parsed with the caller's pydantic model; a mismatch is a SchemaRouterError."""
        try:
            return model.model_validate(self.spec_data(name))
        except ValidationError as err:
            raise SchemaRouterError(f"spec/{name}.yaml does not fit {model.__name__}:\n{err}") from None


_Item = TypeVar("_Item")


def _find(items: tuple[_Item, ...], key: str, value: str, what: str) -> _Item:
    for item in items:
        if getattr(item, key) == value:
            return item
    known = ", ".join(getattr(item, key) for item in items)
    raise SchemaRouterError(f"unknown {what} {value!r} (known: {known})")


def manifest_json(spec: CompiledSpec) -> str:
    """The manifest's file text: sorted keys, 2-space indent, UTF-8 as is, trailing newline."""
    return json.dumps(spec.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def load_compiled(path: Path) -> CompiledSpec:
    """Read build/compiled.json; a missing, stale-format or corrupt manifest is a SchemaRouterError."""
    try:
        data = safe_json.loads(path.read_bytes())
    except FileNotFoundError:
        raise SchemaRouterError(f"{path}: no compiled spec; run `sr compile` first") from None
    except (OSError, ValueError) as err:
        raise SchemaRouterError(safe_json.describe(path, err, "cannot read the compiled spec")) from None
    version = data.get("manifest_schema_version") if isinstance(data, dict) else None
    if version != MANIFEST_SCHEMA_VERSION:
        raise SchemaRouterError(
            f"{path}: manifest_schema_version {version!r} is not {MANIFEST_SCHEMA_VERSION}; "
            "run `sr compile` again"
        )
    try:
        return CompiledSpec.model_validate(data)
    except ValidationError as err:
        raise SchemaRouterError(f"{path}: corrupt compiled spec:\n{err}") from None


def manifest_json_schema() -> JSONObject:
    """The JSON Schema of build/compiled.json, generated from the models."""
    schema = CompiledSpec.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$comment"] = (
        "Generated from runtime.spec_model.compiled; do not edit. Regenerate with: sr schemas --update"
    )
    return schema
