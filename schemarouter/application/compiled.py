"""The compiled spec a run works from: build/<id>/compiled.json when it is current, else a fresh compile.

``compiler/compiled_record.py`` says when the file is current (the raw bytes of every frozen file and
of the lock, the code digest, the file's own digest, its spec data against the lock, and the freeze
check). A compile writes the file and its record again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from compiler.compiled_record import reuse_compiled
from runtime.core.progress import Progress, announce
from runtime.spec_model import CompiledSpec
from schemarouter.project import ProjectPaths


@dataclass(frozen=True)
class CompiledForRun:
    spec: CompiledSpec
    reused: bool  # True: build/<id>/compiled.json was current and was read, not compiled again


def compiled_for_run(
    paths: ProjectPaths,
    *,
    compile: Callable[..., CompiledSpec] | None = None,
    progress: Progress | None = None,
) -> CompiledForRun:
    """The current compiled spec, reusing build/<id>/compiled.json when nothing it came from changed
    (else ``compile``, default ``compile_project``, which writes the file and its record, reporting its
    steps to ``progress`` when one is given)."""
    reused = reuse_compiled(paths)
    if reused is not None:
        return CompiledForRun(reused, reused=True)
    from compiler.compile import compile_project

    compile = compile or compile_project
    spec = compile(paths) if progress is None else compile(paths, progress=progress)
    return CompiledForRun(spec, reused=False)


def compiled_without_writing(paths: ProjectPaths) -> CompiledSpec:
    """The current compiled spec for a command that writes nothing (`sr retrieve`, `sr retrieval ...`):
    build/<id>/compiled.json when it is current, else a compile that leaves build/ as it is."""
    reused = reuse_compiled(paths)
    if reused is not None:
        return reused
    from compiler.compile import compile_project

    return compile_project(paths, write_manifest=False)


def compile_or_reuse(
    paths: ProjectPaths, *, require_frozen: bool = False, full: bool = False, progress: Progress | None = None
) -> CompiledForRun:
    """`sr compile`: reuse a current build of a frozen experiment unless ``full``; else compile."""
    if not full and paths.lock_file.is_file():
        announce(progress, "checking the current build", 0)
        reused = reuse_compiled(paths)
        if reused is not None:
            return CompiledForRun(reused, reused=True)
    from compiler.compile import compile_project

    spec = compile_project(paths, require_frozen=require_frozen, progress=progress)
    return CompiledForRun(spec, reused=False)
