"""`sr run` reuses a current build/<id>/compiled.json, and compiles again when anything it came from changed.

Observable: ``compiled_for_run(...).reused``. A changed spec or catalog file (even only its bytes), a
changed lock or code, or a compiled.json edited by hand (even with its record made to match) all mean
a fresh compile; the freeze check still runs on reuse.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from run_support import frozen_project

from schemarouter.application.compiled import compiled_for_run
from schemarouter.compiler import compile_project, compiled_record
from schemarouter.compiler.canonical import sha256_hex
from schemarouter.errors import SchemaRouterError
from schemarouter.project import ProjectPaths


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProjectPaths]:
    paths = frozen_project(tmp_path_factory.mktemp("reuse"))
    compile_project(paths)
    yield paths


def _reused(paths: ProjectPaths) -> bool:
    return compiled_for_run(paths).reused


def test_untouched_sources_reuse_and_any_change_recompiles(project: ProjectPaths) -> None:
    fresh = compile_project(project)
    first = compiled_for_run(project)
    assert first.reused
    assert first.spec == fresh
    assert _reused(project)

    conditions = project.spec_dir / "conditions.yaml"
    original = conditions.read_text(encoding="utf-8")
    conditions.write_text(original + "# a comment changes the bytes, not the data\n", encoding="utf-8")
    assert not _reused(project)  # compiled again (the data still matches the freeze) ...
    assert _reused(project)  # ... and that compile's record makes the next run reuse it
    conditions.write_text(original, encoding="utf-8")
    assert not _reused(project)

    catalog = project.catalogs_dir / "catalog_100.json"
    raw = catalog.read_bytes()
    catalog.write_bytes(raw + b"\n")
    assert not _reused(project)
    catalog.write_bytes(raw)
    assert not _reused(project)
    assert _reused(project)


def test_a_changed_spec_value_is_never_served_from_the_old_build(project: ProjectPaths) -> None:
    compile_project(project)
    gates = project.spec_dir / "gates.yaml"
    original = gates.read_text(encoding="utf-8")
    gates.write_text(original + "\nextra_key_for_the_test: 1\n", encoding="utf-8")
    try:
        with pytest.raises(SchemaRouterError):  # compiled again: the change is refused, not skipped
            compiled_for_run(project)
    finally:
        gates.write_text(original, encoding="utf-8")
    assert _reused(project)  # the bytes are again those the build was compiled from


def test_code_and_lock_changes_recompile(project: ProjectPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    compile_project(project)
    with monkeypatch.context() as patch:
        patch.setattr(compiled_record, "code_digest", lambda: "0" * 64)
        assert not _reused(project)
    assert not _reused(project)  # the record now holds the other code digest
    assert _reused(project)
    lock = project.lock_file
    raw = lock.read_bytes()
    lock.write_bytes(raw + b"\n")
    try:
        assert not _reused(project)
    finally:
        lock.write_bytes(raw)
    compile_project(project)
    assert _reused(project)


def _tamper(paths: ProjectPaths, change: object, *, fix_record: bool) -> None:
    manifest = paths.compiled_manifest
    data = json.loads(manifest.read_text(encoding="utf-8"))
    change(data)  # type: ignore[operator]
    manifest.write_text(
        json.dumps(data, sort_keys=True, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    if fix_record:
        record_file = compiled_record.record_file(paths)
        record = json.loads(record_file.read_text(encoding="utf-8"))
        record["compiled_sha256"] = sha256_hex(manifest.read_bytes())
        record_file.write_text(json.dumps(record), encoding="utf-8")


def _set_tasks_per_cell(data: dict) -> None:  # type: ignore[type-arg]
    data["tasks_per_cell"] += 1


def _set_raw_tasks_per_cell(data: dict) -> None:  # type: ignore[type-arg]
    data["tasks_per_cell"] += 1
    data["raw"]["strata"]["tasks_per_cell"] += 1


def _drop_a_source(data: dict) -> None:  # type: ignore[type-arg]
    del data["build"]["sources"]["catalogs/catalog_100.json"]


@pytest.mark.parametrize(
    ("change", "fix_record"),
    [
        (_set_tasks_per_cell, False),
        (_set_tasks_per_cell, True),
        (_set_raw_tasks_per_cell, True),
        (_drop_a_source, True),
    ],
)
def test_a_tampered_compiled_json_is_never_trusted(
    project: ProjectPaths, change: object, fix_record: bool
) -> None:
    if compiled_record.reuse_compiled(project) is None:
        compile_project(project)
    manifest, record = project.compiled_manifest, compiled_record.record_file(project)
    good_manifest, good_record = manifest.read_bytes(), record.read_bytes()
    try:
        _tamper(project, change, fix_record=fix_record)
        assert compiled_record.reuse_compiled(project) is None
    finally:
        manifest.write_bytes(good_manifest)
        record.write_bytes(good_record)
    assert compiled_record.reuse_compiled(project) is not None


def test_a_run_after_tampering_gets_a_fresh_compile(project: ProjectPaths) -> None:
    good = compile_project(project)
    _tamper(project, _set_raw_tasks_per_cell, fix_record=True)
    again = compiled_for_run(project)
    assert not again.reused
    assert again.spec == good
    assert _reused(project)


def test_a_draft_is_always_compiled(tmp_path: Path) -> None:
    from run_support import copy_project

    paths = copy_project(tmp_path)
    compile_project(paths)
    assert not compiled_record.record_file(paths).exists()
    assert not _reused(paths)
