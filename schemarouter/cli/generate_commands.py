"""`sr generate` (catalogs and task surface) and `sr surface stats`: option parsing over
:mod:`schemarouter.application.generation`; registered on import by the app."""

from __future__ import annotations

from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, SurfaceFileOpt, SurfaceOpt, app, fail, paths
from schemarouter.cli.surface_group import surface_app


@app.command("generate")
def generate_command(
    ctx: typer.Context,
    check: Annotated[
        bool, typer.Option("--check", help="Exit 1 unless regenerating gives byte-identical files.")
    ] = False,
    experiment: ExperimentOpt = None,
) -> None:
    """Generate catalogs/ (catalogs of every size and the task surface) from spec/ and the seeds."""
    from runtime.report.command_progress import CommandProgress
    from schemarouter.application.generation import run_generate

    with CommandProgress("sr generate") as progress:
        changed, ok = run_generate(project=paths(ctx, experiment), check=check, progress=progress)
    if check:
        if not ok:
            raise fail("catalogs/ differs from a fresh generation:\n" + "\n".join(f"  {p}" for p in changed))
        typer.echo("catalogs/ is byte-identical to a fresh generation.")
        return
    typer.echo(
        f"wrote {len(changed)} file(s)" + (": " + ", ".join(changed) if changed else " (all up to date)")
    )


@surface_app.command("stats")
def surface_stats_command(
    ctx: typer.Context,
    surface: SurfaceOpt = None,
    surface_file: SurfaceFileOpt = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Counts of the frozen surface per stratum x language: plan lengths, distractors, hazards, grants.
    For a pilot surface, also the share of its gold plans and goal routes the other surfaces use."""
    from rich.console import Console  # imported here, so `sr --help` does not load rich's console

    from runtime.report.console import pilot_line
    from schemarouter.application.generation import print_surface_stats
    from schemarouter.application.surfaces import choose_surface

    console = Console(width=max(Console().width, 140))
    project = paths(ctx, experiment)
    chosen = choose_surface(project, surface=surface, surface_file=surface_file)
    if chosen.pilot is not None:
        console.print(pilot_line(chosen.pilot.name), markup=False, highlight=False)
    print_surface_stats(project=project, console=console, surface_file=chosen.file)
    if chosen.pilot is not None and chosen.file is not None:
        from schemarouter.application.surface_reuse import reuse_lines, surface_reuse

        for line in reuse_lines(surface_reuse(project, chosen.file)):
            console.print(line, markup=False, highlight=False)
