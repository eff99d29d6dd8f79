"""`sr preflight`: what the gate can reach, measured on the development surface before the freeze."""

from __future__ import annotations

from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, app, paths


@app.command("preflight")
def preflight_command(
    ctx: typer.Context,
    surface: Annotated[
        str, typer.Option("--surface", help="The pilot surface to measure on (never the evaluation surface).")
    ] = "dev",
    workers: Annotated[int, typer.Option("--workers", help="Worker processes of the pilot run.")] = 2,
    experiment: ExperimentOpt = None,
) -> None:
    """Per gate criterion: the pilot estimate with its interval, the bound the protocol sets, the minimum
    detectable difference and a verdict (reachable, unreachable, underpowered).

    Runs a pilot of every condition and catalog size on the development surface with the reference agent
    (its run directory goes under runs/, like every pilot's); writes nothing into spec/. `sr freeze` runs
    it too and refuses an unreachable criterion without --accept-infeasible.
    """
    from runtime.report.command_progress import CommandProgress
    from schemarouter.application.preflight import PreflightRequest, run_preflight
    from schemarouter.application.preflight_text import preflight_lines

    with CommandProgress("sr preflight") as progress:
        request = PreflightRequest(surface=surface, workers=workers)
        pre = run_preflight(paths(ctx, experiment), request, progress=progress)
    for line in preflight_lines(pre):
        typer.echo(line)
