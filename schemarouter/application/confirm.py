"""``sr confirm``: run a draft, in its full scope, on a confirmation surface, and record it.

A confirmation surface is tasks the design's authors never used: neither the evaluation surface nor
dev, under any name. Before anything runs or is written, the surface file is refused, in one line naming
what it is, when:

* it holds a task of the evaluation surface or of dev (compared by each task's content digest without
  its task id, so a copy or a re-tagged copy is found wherever it lies);
* it is truncated: its ``manifest.json`` (written by ``sr surface generate``) is missing, or names
  another sha256 or another task count than the file has;
* a task references a route outside the experiment's catalogs.

The run is an ordinary pilot (surface ``confirmation``; also an entry of pilots.yaml); its id, the
surface's sha256 and task digest, the command that generated it (from the manifest) and the verdict
line are appended to ``spec/<id>/confirmation.yaml``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from compiler.confirmations import CONFIRMATIONS, record_confirmation
from runtime.core.errors import SchemaRouterError
from runtime.core.jcs import dumps as jcs_dumps
from runtime.report.console import verdict_line
from runtime.report.report_data import as_report_data
from runtime.run import read_manifest
from runtime.run.manifest import now_utc
from runtime.surface.io import SURFACE_FILE, load_surface_file
from runtime.surface.model import Task
from schemarouter.application.run import NO_DEPS, RunDeps, RunOutcome, RunRequest, run_experiment
from schemarouter.application.surfaces import choose_surface
from schemarouter.project import ProjectPaths

CONFIRMATION = "confirmation"
MANIFEST_FILE = "manifest.json"


@dataclass(frozen=True)
class CheckedSurface:
    """A surface file accepted as a confirmation surface."""

    file: Path
    shown: str
    sha256: str
    task_digest: str
    tasks: int
    generation: str


def task_content_digest(task: Task) -> str:
    """sha256 of a task's content without its id: equal for a copy under another id or tag."""
    data = task.model_dump(mode="json")
    data.pop("task_id", None)
    return hashlib.sha256(jcs_dumps(data)).hexdigest()


def surface_digest(tasks: list[Task]) -> str:
    """sha256 of the sorted content digests of a surface's tasks."""
    return hashlib.sha256("\n".join(sorted(task_content_digest(t) for t in tasks)).encode()).hexdigest()


def _shown(paths: ProjectPaths, file: Path) -> str:
    try:
        return file.relative_to(paths.root).as_posix()
    except ValueError:
        return file.as_posix()


def _manifest(file: Path, shown: str) -> dict[str, Any]:
    manifest = file.with_name(MANIFEST_FILE)
    if not manifest.is_file():
        raise SchemaRouterError(
            f"{shown}: no {MANIFEST_FILE} beside it; a confirmation surface is one that "
            "`sr surface generate` wrote"
        )
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise SchemaRouterError(f"{_shown_sibling(shown)}: not JSON ({err})") from None
    if not isinstance(data, dict):
        raise SchemaRouterError(f"{_shown_sibling(shown)}: not an object")
    return data


def _shown_sibling(shown: str) -> str:
    return shown.rsplit("/", 1)[0] + "/" + MANIFEST_FILE if "/" in shown else MANIFEST_FILE


def _check_complete(data: dict[str, Any], raw: bytes, count: int, shown: str) -> None:
    recorded = ((data.get("files") or {}).get(SURFACE_FILE) or {}).get("sha256")
    actual = hashlib.sha256(raw).hexdigest()
    if recorded != actual or data.get("tasks") != count:
        raise SchemaRouterError(
            f"{shown}: truncated or edited: {count} tasks, sha256 {actual[:12]}, but its {MANIFEST_FILE} "
            f"records {data.get('tasks')} tasks, sha256 {str(recorded)[:12]}; generate it again"
        )


def generation_command(data: dict[str, Any]) -> str:
    """The ``sr surface generate`` command that wrote a surface, from its manifest."""
    sources = data.get("sources") or {}
    seeds = data.get("seeds") or {}
    if data.get("surface") not in (None, "file") and not any(k.startswith("intents:") for k in sources):
        return f"sr surface generate --surface {data['surface']} --experiment {data.get('experiment')}"
    parts = ["sr surface generate"]
    for key in sorted(sources):
        kind, _, path = key.partition(":")
        parts.append(f"--{kind} {path}")
    parts.append(f"--seed {seeds.get('surface')} --world-seed {seeds.get('world')}")
    parts.append(f"--tag {data.get('task_tag')} --experiment {data.get('experiment')}")
    return " ".join(parts)


def _reference_digests(paths: ProjectPaths) -> dict[str, set[str]]:
    """Content digests of the evaluation surface's tasks and of dev's, by name."""
    from runtime.surface import load_surface

    references = {
        "the evaluation surface": {task_content_digest(t) for t in load_surface(paths.catalogs_dir)}
    }
    from compiler.generate.surface_names import named_surfaces

    for name in named_surfaces(paths.root):
        chosen = choose_surface(paths, surface=name, surface_file=None)
        references[f"the {name} surface"] = {task_content_digest(t) for t in chosen.tasks(paths)}
    return references


def _check_new_tasks(paths: ProjectPaths, tasks: list[Task], shown: str) -> None:
    """Refuse a surface holding tasks of the evaluation surface or of dev, whatever its path or tag."""
    digests = {task_content_digest(t): t.task_id for t in tasks}
    for name, reference in _reference_digests(paths).items():
        shared = sorted(digests[d] for d in digests.keys() & reference)
        if len(shared) == len(tasks) == len(reference):
            raise SchemaRouterError(
                f"{shown}: is {name} (the same tasks, by content); a confirmation needs new tasks"
            )
        if shared:
            raise SchemaRouterError(
                f"{shown}: {len(shared)} of its {len(tasks)} tasks are tasks of {name} (first: {shared[0]}); "
                "a confirmation needs tasks its authors never used"
            )


def check_confirmation_surface(paths: ProjectPaths, surface_file: Path) -> CheckedSurface:
    """The surface file, refused in one line when it cannot confirm anything (module docstring)."""
    file = surface_file.resolve()
    if file.is_dir():
        file = file / SURFACE_FILE
    shown = _shown(paths, file)
    if not file.is_file():
        raise SchemaRouterError(f"--surface-file {surface_file}: no such file")
    raw = file.read_bytes()
    tasks = load_surface_file(file)
    if not tasks:
        raise SchemaRouterError(f"{shown}: no tasks")
    _check_new_tasks(paths, tasks, shown)
    manifest = _manifest(file, shown)
    _check_complete(manifest, raw, len(tasks), shown)
    choose_surface(paths, surface=None, surface_file=file)  # every plan route in the catalogs
    return CheckedSurface(
        file=file,
        shown=shown,
        sha256=hashlib.sha256(raw).hexdigest(),
        task_digest=surface_digest(tasks),
        tasks=len(tasks),
        generation=generation_command(manifest),
    )


def confirm_draft(
    paths: ProjectPaths, request: RunRequest, deps: RunDeps = NO_DEPS
) -> tuple[RunOutcome, CheckedSurface]:
    """Check the surface, run the draft on it in its full scope, append to confirmation.yaml."""
    from compiler.run_records import record_problems
    from schemarouter.output_guard import output_guard

    if request.run_dir is not None:  # a named run directory is refused before anything is read
        output_guard(paths.root).directory(request.run_dir, option="--run-dir")
    if paths.lock_file.exists():
        raise SchemaRouterError(
            f"{paths.lock_display}: experiment {paths.experiment} is frozen; a confirmation runs before "
            "the freeze (sr run --surface-file F is a pilot of a frozen experiment)"
        )
    if request.surface_file is None:
        raise SchemaRouterError("sr confirm needs --surface-file F")
    broken = record_problems(paths)
    if broken:
        raise SchemaRouterError(broken[0] + "; nothing run")
    checked = check_confirmation_surface(paths, request.surface_file)
    outcome = run_experiment(
        paths, replace(request, surface_file=checked.file, surface_file_name=CONFIRMATION), deps
    )
    if outcome.report is not None:
        verdict = verdict_line(as_report_data(outcome.report))
    else:
        verdict = f"not terminal: no verdict (sr run --resume --run-dir {outcome.run_dir})"
    record_confirmation(
        paths,
        fields={
            "run_id": read_manifest(outcome.run_dir).run_id,
            "surface_path": checked.shown,
            "surface_sha256": checked.sha256,
            "task_digest": checked.task_digest,
            "tasks": checked.tasks,
            "generation": checked.generation,
            "verdict": verdict,
        },
        now=now_utc(),
    )
    return outcome, checked


def confirmation_file(paths: ProjectPaths) -> str:
    """Where the experiment's confirmations are recorded, for messages."""
    return paths.display(CONFIRMATIONS.shown)
