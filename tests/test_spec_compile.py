"""Compile: drafts, frozen builds, drift refusal, the manifest and its checked-in JSON Schema."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator
from spec_support import edit, make_project, write

from compiler import compile_project, freeze_project
from runtime.core.errors import SchemaRouterError
from runtime.spec_model import CompiledSpec, load_compiled, read_lock
from schemarouter.application.schemas import load_schema, stale_schemas


def test_without_a_lock_compiles_a_draft(tmp_path) -> None:
    paths = make_project(tmp_path)
    spec = compile_project(paths)
    assert spec.draft and spec.build.freeze is None and spec.root_hash is None
    assert set(spec.build.sources) == {p for p in spec.build.sources if p.startswith("spec/")}
    assert load_compiled(paths.compiled_manifest) == spec
    with pytest.raises(SchemaRouterError, match="freeze the specs first"):
        compile_project(paths, require_frozen=True)


def test_frozen_compile_carries_the_freeze(tmp_path) -> None:
    paths = make_project(tmp_path)
    freeze_project(paths, reason="initial")
    spec = compile_project(paths, require_frozen=True)
    lock = read_lock(paths.lock_file)
    assert lock is not None and spec.build.freeze is not None
    assert not spec.draft and spec.build.freeze.root == lock.root and spec.root_hash == lock.root.digest
    assert spec.build.sources == lock.files
    assert spec.build.freeze.reason == "initial" and not spec.build.freeze.scoring_started


def test_drift_is_refused_with_the_verify_message(tmp_path) -> None:
    paths = make_project(tmp_path)
    freeze_project(paths, reason="initial")
    edit(paths, "spec/gates.yaml", "interval: bootstrap", "interval: the bootstrap")
    with pytest.raises(SchemaRouterError) as caught:
        compile_project(paths)
    assert "spec/gates.yaml: gates.interval:" in str(caught.value)
    assert not paths.compiled_manifest.exists()


def test_invalid_specs_are_refused_before_verify(tmp_path) -> None:
    paths = make_project(tmp_path)
    edit(paths, "spec/strata.yaml", "tasks_per_cell: 6", "tasks_per_cell: 7")
    with pytest.raises(SchemaRouterError, match=r"spec/strata.yaml:3:17: tasks_per_cell: 7 differs"):
        compile_project(paths)


def test_compiled_objects_are_resolved_and_frozen(tmp_path) -> None:
    spec = compile_project(make_project(tmp_path), write_manifest=False)
    ids = tuple(c.id for c in spec.conditions)
    assert ids == ("SR-5-STATIC", "SR-PROGRESSIVE-STATIC", "SR-5-STATE-AWARE", "FULL", "ORACLE")
    assert spec.metric("task_pass").applies_to == ids
    assert "FULL" not in spec.metric("next_tool_recall_at_5").applies_to
    last_error = next(f for f in spec.state_contract.allowed if f.name == "last_error_class")
    assert last_error.type.values == spec.state_contract.error_classes
    assert spec.condition("SR-5-STATE-AWARE").refresh is not None
    assert spec.condition("SR-5-STATE-AWARE").refresh.k_per_refresh == 5
    assert spec.criterion("G1").threshold == -0.02
    assert spec.experiment.bootstrap.seed == 20260929
    assert spec.tasks_per_cell * len(spec.strata) * len(spec.experiment.languages) == 180
    with pytest.raises(SchemaRouterError, match="unknown condition 'NOPE'"):
        spec.condition("NOPE")
    with pytest.raises(ValueError, match="frozen"):
        spec.conditions[0].initial_k = 10  # type: ignore[misc]


def test_raw_data_of_every_spec_file_for_other_areas(tmp_path) -> None:
    from pydantic import BaseModel, ConfigDict

    class ExtraSpec(BaseModel):
        model_config = ConfigDict(extra="forbid")
        depth: int

    paths = make_project(tmp_path)
    write(
        paths, "spec/schema/extra.schema.json", '{"$schema": "https://json-schema.org/draft/2020-12/schema"}'
    )
    write(paths, "spec/extra.yaml", "depth: 3\n")
    spec = compile_project(paths, write_manifest=False)
    assert spec.parse("extra", ExtraSpec).depth == 3
    copy = spec.spec_data("gates")
    copy["treatment"] = "changed"
    assert spec.raw["gates"]["treatment"] == "SR-5-STATE-AWARE"
    with pytest.raises(SchemaRouterError, match=r"no spec file spec/missing\.yaml"):
        spec.spec_data("missing")


def test_manifest_is_deterministic_and_fits_its_checked_in_schema(tmp_path) -> None:
    paths = make_project(tmp_path)
    compile_project(paths)
    first = paths.compiled_manifest.read_bytes()
    compile_project(paths)
    assert paths.compiled_manifest.read_bytes() == first
    schema = load_schema("runtime", "spec_model/compiled_manifest.schema.json")
    errors = list(Draft202012Validator(schema).iter_errors(json.loads(first)))
    assert errors == []


def test_checked_in_schemas_match_the_models() -> None:
    assert stale_schemas() == [], "regenerate: sr schemas --update"


def test_load_compiled_refuses_missing_old_and_corrupt_manifests(tmp_path) -> None:
    target = tmp_path / "compiled.json"
    with pytest.raises(SchemaRouterError, match="run `sr compile` first"):
        load_compiled(target)
    target.write_text('{"manifest_schema_version": 0}')
    with pytest.raises(SchemaRouterError, match="manifest_schema_version 0 is not 1"):
        load_compiled(target)
    target.write_text('{"manifest_schema_version": 1}')
    with pytest.raises(SchemaRouterError, match="corrupt compiled spec"):
        load_compiled(target)


def test_the_runtime_reads_the_manifest_without_the_compiler(tmp_path) -> None:
    paths = make_project(tmp_path)
    compile_project(paths)
    code = (
        "import sys; from pathlib import Path\n"
        "from runtime.spec_model import load_compiled\n"
        f"spec = load_compiled(Path({str(paths.compiled_manifest)!r}))\n"
        "assert spec.draft\n"
        "assert not any(m.startswith('compiler') for m in sys.modules), 'compiler imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_compiled_spec_model_round_trips(tmp_path) -> None:
    spec = compile_project(make_project(tmp_path), write_manifest=False)
    assert CompiledSpec.model_validate_json(spec.model_dump_json()) == spec
