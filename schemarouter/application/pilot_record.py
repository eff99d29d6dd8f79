"""What ``sr run`` records of a draft's run when a session ends: one entry of spec/<id>/pilots.yaml.

Every surface counts: dev, a ``--surface-file``, a confirmation surface, and the evaluation surface
(``--draft``, also in peeks.yaml). The entry holds the surface's name and sha256, the scope, the run id,
the time and the verdict line; the outcomes stay in the run directory. A frozen experiment's folder is
never written: its pilot is recorded in the run directory alone, and the console says so.
"""

from __future__ import annotations

import hashlib
from typing import Any

from rich.console import Console

from compiler.pilots import PILOTS, record_pilot
from runtime.core.json_value import JSONObject
from runtime.report.console import verdict_line
from runtime.report.report_data import as_report_data
from runtime.run.manifest import RunManifest, now_utc
from runtime.spec_model import CompiledSpec
from runtime.surface.io import SURFACE_FILE
from schemarouter.project import ProjectPaths

EVALUATION = "evaluation"


def session_verdict(manifest: RunManifest, report: JSONObject | None, exit_code: int) -> str:
    """The verdict line of a session's end: the gate's when scored, else why there is none."""
    if report is not None:
        return verdict_line(as_report_data(report))
    if exit_code != 0:
        return "not terminal: no verdict yet (sr run --resume --run-dir DIR)"
    if manifest.shard.count > 1:
        return f"shard {manifest.shard.label()} complete: no verdict until every shard is scored"
    return "not scored: a draft on the evaluation surface is never scored"


def _scope(compiled: CompiledSpec, manifest: RunManifest) -> dict[str, Any]:
    """The run's scope; ``full``: every condition, catalog size and task of its surface, one epoch."""
    scope, pilot = manifest.scope, manifest.surface
    full = manifest.shard.count == 1 and (
        scope.preregistered
        if pilot is None
        else len(scope.conditions) == len(compiled.conditions)
        and len(scope.catalogs) == len(compiled.experiment.catalog_sizes)
        and len(scope.tasks) == pilot.tasks
        and scope.epochs == 1
    )
    return {
        "conditions": list(scope.conditions),
        "catalogs": [int(c) for c in scope.catalogs],
        "tasks": len(scope.tasks),
        "full": full,
    }


def _evaluation_sha256(paths: ProjectPaths) -> str:
    file = paths.catalogs_dir / SURFACE_FILE
    return hashlib.sha256(file.read_bytes()).hexdigest() if file.is_file() else ""


def record_session(
    paths: ProjectPaths,
    console: Console,
    *,
    compiled: CompiledSpec,
    manifest: RunManifest,
    verdict: str,
) -> None:
    """Append the draft's run to pilots.yaml, or say why a frozen experiment's pilot is not appended."""
    pilot = manifest.surface
    if not compiled.draft:
        if pilot is not None:
            console.print(
                f"frozen experiment: this pilot is recorded in {manifest.run_id}'s run directory only; "
                f"{paths.display(PILOTS.shown)} is frozen with the draft and never written after",
                markup=False,
                highlight=False,
            )
        return
    surface = EVALUATION if pilot is None else pilot.name
    added = record_pilot(
        paths,
        run_id=manifest.run_id,
        surface=surface,
        surface_sha256=_evaluation_sha256(paths) if pilot is None else pilot.sha256,
        scope=_scope(compiled, manifest),
        verdict=verdict,
        now=now_utc(),
        run_created_at=manifest.created_at,
    )
    if added:
        console.print(
            f"draft: recorded in {paths.display(PILOTS.shown)} (surface {surface}, run {manifest.run_id}): "
            f"{verdict}",
            markup=False,
            highlight=False,
        )
