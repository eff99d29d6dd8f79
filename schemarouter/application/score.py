"""`sr status` and `sr score`: a run's progress, and the scoring of a terminal run or of its shards.

Scoring reads the compiled spec and writes only the report, so a read-only project can be scored. A set
that is not terminal raises SealedResultSet: progress counts only, never a partial outcome.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from compiler import compile_project
from compiler.compiled_record import reuse_compiled
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject
from runtime.report.console import make_console, pilot_line, print_verdict, status_lines
from runtime.report.publish import score_and_publish
from runtime.report.report_data import as_report_data
from runtime.run import EngineSetup, load_result_set, read_manifest
from runtime.spec_model import CompiledSpec
from runtime.spec_model.identity import identity_line, lineage_of
from schemarouter.application.run import NO_DEPS, RunDeps
from schemarouter.project import ProjectPaths


@dataclass(frozen=True)
class ScoreRequest:
    """Score ``run_dirs`` (one run, or every shard of one) into ``out`` (default: beside the run)."""

    run_dirs: tuple[Path, ...]
    out: Path | None = None
    plots: bool = False  # the PNG plots (`--plots`); report.html draws its figures either way
    plot_svg: bool = False  # each plot also as SVG (`--plot-svg`, which implies `--plots`)


def show_status(run_dirs: list[Path], console: Console | None = None) -> bool:
    """Print the status; False when the store holds what ``sr run`` never writes (rows outside the
    scope, events on committed episodes), so ``sr status`` can exit 1 after showing why."""
    console = console or make_console()
    result_set = load_result_set(run_dirs)
    for line in status_lines(result_set):
        console.print(line, markup=False, highlight=False)
    return not result_set.anomaly_lines()


def score_runs(paths: ProjectPaths, request: ScoreRequest, deps: RunDeps = NO_DEPS) -> JSONObject:
    """Score one run or merge its shards; print the verdict and return the report."""
    console = deps.console or make_console()
    run_dirs = list(request.run_dirs)
    if request.out is not None:
        from schemarouter.output_guard import output_guard

        output_guard(paths.root).directory(request.out, option="--out")
    load_result_set(run_dirs)  # a damaged or foreign run directory is refused before the (slower) compile
    # build/<id>/compiled.json when it is current (not validated again); else compile_project, looked up
    # here so tests may swap it.
    compiled = reuse_compiled(paths) or compile_project(paths, write_manifest=False)
    out = request.out or default_out(paths, run_dirs)
    if request.out is None:
        from schemarouter.output_guard import output_guard

        output_guard(paths.root).directory(out, option="the report directory")
    if (
        read_manifest(run_dirs[0]).surface is None
    ):  # not a pilot: the code must behave as the freeze pinned it
        from schemarouter.application.code_pin import require_code_unchanged

        require_code_unchanged(paths, compiled)
    setup = scoring_setup(paths, compiled, run_dirs)
    identity = identity_line(compiled.experiment.id, lineage_of(compiled))
    scored = score_and_publish(
        run_dirs,
        compiled=compiled,
        paths=paths,
        out_dir=out,
        audit=deps.engine_or_default().metrics_audit(setup),
        plots=request.plots,
        svg=request.plot_svg,
        on_scored=lambda s: print_verdict(console, as_report_data(s.report), identity=identity),
    )
    console.print(f"report: {out / 'report.md'}")
    if scored.report.get("pilot"):
        console.print(pilot_line(scored.report["pilot"]["surface"]), markup=False, highlight=False)
    return scored.report


def scoring_setup(paths: ProjectPaths, compiled: CompiledSpec, run_dirs: list[Path]) -> EngineSetup:
    """What the metrics audit of ``run_dirs`` needs: the experiment's catalogs and the run's surface
    (a pilot's own). Scoring and ``sr export`` both recompute every episode's metrics through it."""
    first = read_manifest(run_dirs[0])
    surface_file = None
    if first.surface is not None:
        from schemarouter.application.surfaces import pilot_surface_file

        surface_file = str(pilot_surface_file(paths, first.surface))
    return EngineSetup(
        project_root=paths.root,
        compiled=compiled,
        catalog_sizes=first.scope.catalogs,
        agent=first.agent.name,
        catalogs_dir=paths.catalogs_dir,
        surface_file=surface_file,
    )


def default_out(paths: ProjectPaths, run_dirs: list[Path]) -> Path:
    out = run_dirs[0] if len(run_dirs) == 1 else paths.runs_dir / f"merged-{_merge_id(run_dirs)}"
    if out.is_dir() and not os.access(out, os.W_OK):
        raise SchemaRouterError(
            f"{out}: the run directory is read-only; write the report elsewhere with --out DIR"
        )
    return out


def _merge_id(run_dirs: list[Path]) -> str:
    run_ids = sorted(read_manifest(d).run_id for d in run_dirs)
    return hashlib.sha256("\n".join(run_ids).encode()).hexdigest()[:12]
