"""`sr run` reuses a current build/<id>/compiled.json, and compiles again when anything it came from changed.

Observable: ``compiled_for_run(...).reused`` (and ``reuse_compiled``, the check alone). A changed spec
or catalog file (even only its bytes), a changed lock or code, or a compiled.json edited by hand (even
with its record made to match) all mean a fresh compile; the freeze check still runs on reuse.
One frozen project serves the module; each test puts back what it changed, build files included.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from run_support import frozen_project

from compiler import compile_project, compiled_record
from compiler.canonical import sha256_hex
from runtime.core.errors import SchemaRouterError
from runtime.spec_model import CompiledSpec
from schemarouter.application.compiled import compiled_for_run
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[ProjectPaths, CompiledSpec]:
    paths = frozen_project(tmp_path_factory.mktemp("reuse"))
    return paths, compile_project(paths)


@pytest.fixture
def project(built: tuple[ProjectPaths, CompiledSpec]) -> ProjectPaths:
    paths = built[0]
    assert compiled_record.reuse_compiled(paths) is not None  # every test starts from a current build
    return paths


@contextmanager
def _kept(*files: Path) -> Iterator[None]:
    """Put ``files`` back as they were (the build's too) when the block ends."""
    saved = {file: file.read_bytes() for file in files}
    try:
        yield
    finally:
        for file, raw in saved.items():
            file.write_bytes(raw)


def _build_files(paths: ProjectPaths) -> tuple[Path, Path]:
    return paths.compiled_manifest, compiled_record.record_file(paths)


def _reused(paths: ProjectPaths) -> bool:
    return compiled_for_run(paths).reused


def test_untouched_sources_are_reused(built: tuple[ProjectPaths, CompiledSpec]) -> None:
    paths, compiled = built
    first = compiled_for_run(paths)
    assert first.reused
    assert first.spec == compiled


def test_changed_bytes_recompile_once(project: ProjectPaths) -> None:
    conditions = project.spec_dir / "conditions.yaml"
    with _kept(conditions, *_build_files(project)):
        conditions.write_bytes(conditions.read_bytes() + b"# a comment changes the bytes, not the data\n")
        assert not _reused(project)  # compiled again (the data still matches the freeze) ...
        assert _reused(project)  # ... and that compile's record makes the next run reuse it
    catalog = project.catalogs_dir / "catalog_100.json"
    with _kept(catalog, *_build_files(project)):
        catalog.write_bytes(catalog.read_bytes() + b"\n")
        assert compiled_record.reuse_compiled(project) is None
    assert _reused(project)  # the bytes are again those the build was compiled from


def test_a_changed_spec_value_is_never_served_from_the_old_build(project: ProjectPaths) -> None:
    gates = project.spec_dir / "gates.yaml"
    with _kept(gates):
        gates.write_bytes(gates.read_bytes() + b"\nextra_key_for_the_test: 1\n")
        with pytest.raises(SchemaRouterError):  # compiled again: the change is refused, not skipped
            compiled_for_run(project)
    assert _reused(project)


def test_code_and_lock_changes_recompile(project: ProjectPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    with _kept(*_build_files(project)), monkeypatch.context() as patch:
        patch.setattr(compiled_record, "code_digest", lambda: "0" * 64)
        assert not _reused(project)
        assert _reused(project)  # the record now holds the other code digest
    assert _reused(project)
    with _kept(project.lock_file):
        project.lock_file.write_bytes(project.lock_file.read_bytes() + b"\n")
        assert compiled_record.reuse_compiled(project) is None


def _tamper(paths: ProjectPaths, change: Callable[[dict[str, Any]], None], *, fix_record: bool) -> None:
    manifest, record_file = _build_files(paths)
    data = json.loads(manifest.read_text(encoding="utf-8"))
    change(data)
    manifest.write_text(
        json.dumps(data, sort_keys=True, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    if fix_record:
        record = json.loads(record_file.read_text(encoding="utf-8"))
        record["compiled_sha256"] = sha256_hex(manifest.read_bytes())
        record_file.write_text(json.dumps(record), encoding="utf-8")


def _set_tasks_per_cell(data: dict[str, Any]) -> None:
    data["tasks_per_cell"] += 1


def _set_raw_tasks_per_cell(data: dict[str, Any]) -> None:
    data["tasks_per_cell"] += 1
    data["raw"]["strata"]["tasks_per_cell"] += 1


def _drop_a_source(data: dict[str, Any]) -> None:
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
    project: ProjectPaths, change: Callable[[dict[str, Any]], None], fix_record: bool
) -> None:
    with _kept(*_build_files(project)):
        _tamper(project, change, fix_record=fix_record)
        assert compiled_record.reuse_compiled(project) is None


def test_a_run_after_tampering_gets_a_fresh_compile(built: tuple[ProjectPaths, CompiledSpec]) -> None:
    paths, compiled = built
    _tamper(paths, _set_raw_tasks_per_cell, fix_record=True)
    again = compiled_for_run(paths)
    assert not again.reused
    assert again.spec == compiled
    assert _reused(paths)


def test_a_draft_compile_leaves_no_record(project: ProjectPaths) -> None:
    lock = project.lock_file
    with _kept(lock, *_build_files(project)):
        lock.unlink()
        assert compile_project(project).draft
        assert not compiled_record.record_file(project).exists()
        assert not _reused(project)


def test_sr_compile_reuses_a_current_build_says_so_and_full_compiles(project: ProjectPaths) -> None:
    from typer.testing import CliRunner

    from schemarouter.cli.app import app

    def compile_output(*args: str) -> str:
        result = CliRunner().invoke(app, ["--project-dir", str(project.root), "compile", *args])
        assert result.exit_code == 0, result.output
        return result.output

    assert ": current (every source unchanged; freeze verified), frozen at sha256:" in compile_output()
    assert ": compiled, frozen at sha256:" in compile_output("--full")
    spec = project.spec_dir / "gates.yaml"
    with _kept(spec, *_build_files(project)):
        spec.write_bytes(spec.read_bytes() + b"# new bytes, same data\n")
        assert ": compiled, frozen at sha256:" in compile_output()  # changed bytes: compiled, not reused
        assert ": current (" in compile_output()  # and that compile's record is current


def test_reusing_a_current_build_loads_no_validator(project: ProjectPaths) -> None:
    """The reuse check rebuilds and verifies; it does not validate, so it does not load the validator
    and its checks (compiler's names are imported on first use)."""
    code = (
        "import sys; from pathlib import Path\n"
        "from schemarouter.application.compiled import compiled_for_run\n"
        "from schemarouter.project import ProjectPaths\n"
        f"assert compiled_for_run(ProjectPaths.at(Path({str(project.root)!r}))).reused\n"
        "bad = sorted(m for m in sys.modules if m == 'compiler.validate' or m == 'tantivy')\n"
        "assert not bad, bad\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=project.root)
    assert done.returncode == 0, done.stderr


def test_the_compiler_package_names_resolve_lazily_and_only_those() -> None:
    import compiler as package

    assert sorted(package.__all__) == sorted([*package._HOMES, *package._LOCK_NAMES])  # one list, no drift
    for name in package.__all__:
        assert callable(getattr(package, name)), name
    with pytest.raises(AttributeError, match="no attribute 'compile_everything'"):
        _ = package.compile_everything  # type: ignore[attr-defined]
