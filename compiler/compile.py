"""Compile the specs into frozen runtime objects and write build/compiled.json.

Order: validate (every problem, or stop) -> verify against spec/freeze.lock (drift: stop with the drift
message; no lock: a draft) -> build the typed models, resolving what the runtime should not re-derive
(``applies_to: all`` into condition ids, ``values_from`` into values) -> write the manifest.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import ValidationError

from compiler.git_info import git_state
from compiler.verify import current_fingerprints, require_verified
from runtime.core.atomic_write import write_text_atomic
from runtime.core.errors import SchemaRouterError
from runtime.core.progress import Progress, announce
from runtime.spec_model import (
    MANIFEST_SCHEMA_VERSION,
    BuildInfo,
    CompiledSpec,
    ConditionLimitsSpec,
    ConditionSpec,
    ExperimentSpec,
    FileDigest,
    FreezeRef,
    GateSpec,
    MetricSpec,
    StateContractSpec,
    StratumSpec,
    manifest_json,
    read_lock,
)
from runtime.state.sources import source_code
from schemarouter import __version__
from schemarouter.project import ProjectPaths

COMPILER_VERSION = __version__


def compile_project(
    paths: ProjectPaths,
    *,
    write_manifest: bool = True,
    require_frozen: bool = False,
    progress: Progress | None = None,
) -> CompiledSpec:
    """Validate, verify and compile the project's specs; write build/compiled.json unless told not to.

    Without spec/freeze.lock the result is a draft (``build.draft``), unless ``require_frozen``.
    Raises SchemaRouterError on invalid specs, on drift from the lock, or on a missing lock when required.
    ``progress``: validating, verifying, building, writing.
    """
    from compiler import compiled_record
    from compiler.validate import validate_project  # not needed to rebuild a current build

    # The bytes compiled from, taken before reading them: a file edited meanwhile is a mismatch later.
    recorded = compiled_record.sources_if_readable(paths) if write_manifest else None
    announce(progress, "validating the specs", 0)
    validated = validate_project(paths)
    announce(progress, "verifying the freeze", 0)
    sources, freeze = _verified_sources(paths, require_frozen=require_frozen)
    build = BuildInfo(
        compiler_version=COMPILER_VERSION,
        draft=freeze is None,
        freeze=freeze,
        git=git_state(paths.root),
        sources=sources,
    )
    announce(progress, "building the compiled spec", 0)
    spec = build_compiled_spec(validated.data, build)
    if write_manifest:
        announce(progress, "writing compiled.json", 0)
        compiled_record.drop_record(paths)
        write_compiled(paths, spec)
        if freeze is not None and recorded is not None:
            compiled_record.write_record(paths, recorded)
    return spec


def _verified_sources(
    paths: ProjectPaths, *, require_frozen: bool
) -> tuple[dict[str, FileDigest], FreezeRef | None]:
    """The digest of every file compiled from, and the freeze it was verified against (None: a draft,
    refused when ``require_frozen``); drift from the lock raises."""
    lock = read_lock(paths.lock_file)
    if lock is None:
        if require_frozen:
            raise SchemaRouterError(
                'spec/freeze.lock: not found; freeze the specs first: sr freeze --reason "<why>"'
            )
        return {path: f.digest for path, f in current_fingerprints(paths).items()}, None
    report = require_verified(paths)
    freeze = FreezeRef(
        root=lock.root,
        frozen_at=lock.frozen_at,
        reason=lock.reason,
        scoring_started=lock.scoring_started is not None,
    )
    return {path: f.digest for path, f in report.current.items()}, freeze


def build_compiled_spec(data: dict[str, Any], build: BuildInfo) -> CompiledSpec:
    """The typed bundle from validated spec data."""
    data = copy.deepcopy(data)
    conditions = data["conditions"]
    condition_ids = [c["id"] for c in conditions["conditions"]]
    try:
        return CompiledSpec(
            manifest_schema_version=MANIFEST_SCHEMA_VERSION,
            build=build,
            experiment=ExperimentSpec.model_validate(data["experiment"]),
            state_contract=StateContractSpec.model_validate(_resolve_values_from(data["state_contract"])),
            conditions=tuple(ConditionSpec.model_validate(c) for c in conditions["conditions"]),
            condition_limits=ConditionLimitsSpec.model_validate(conditions["limits"]),
            tasks_per_cell=data["strata"]["tasks_per_cell"],
            strata=tuple(StratumSpec.model_validate(s) for s in data["strata"]["strata"]),
            metrics=tuple(
                MetricSpec.model_validate(_resolve_applies_to(m, condition_ids))
                for m in data["metrics"]["metrics"]
            ),
            gate=GateSpec.model_validate(data["gates"]),
            raw=data,
        )
    except ValidationError as err:
        # The schemas passed, so the runtime models disagree with them: a defect of this package.
        raise SchemaRouterError(f"the compiled models do not accept the validated specs:\n{err}") from None


def _resolve_values_from(contract: dict[str, Any]) -> dict[str, Any]:
    """``values_from`` into values, and each field's source: the one it names, or the one its name
    implies when it names none (a contract written before sources were named; validation refused
    any other)."""
    contract = copy.deepcopy(contract)
    for field in contract["allowed"]:
        origin = field["type"].get("values_from")
        if origin is not None:
            field["type"]["values"] = list(contract[origin])
        field["source"] = source_code(field["name"], field.get("source"))
    return contract


def _resolve_applies_to(metric: dict[str, Any], condition_ids: list[str]) -> dict[str, Any]:
    if metric["applies_to"] == "all":
        return {**metric, "applies_to": list(condition_ids)}
    return metric


def write_compiled(paths: ProjectPaths, spec: CompiledSpec) -> None:
    """Write build/compiled.json atomically."""
    # A unique temporary name: concurrent `sr compile` runs never share (and delete) one another's file.
    write_text_atomic(paths.compiled_manifest, manifest_json(spec))
