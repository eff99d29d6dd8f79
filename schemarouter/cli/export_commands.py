"""`sr export`: option parsing over schemarouter.application.export."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, app, paths


@app.command("export")
def export_command(
    ctx: typer.Context,
    run_dir: Annotated[Path, typer.Argument(help="A scored run directory (runs/<run_id>/).")],
    formats: Annotated[
        str, typer.Option("--format", help="Comma-separated: inspect, parquet, csv.", show_default=False)
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="Directory to write (default: RUN_DIR/export/).")
    ] = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Export a scored run: inspect_ai eval logs, or the per-task and decision-point tables as Parquet/CSV."""
    from runtime.report.command_progress import CommandProgress
    from schemarouter.application.export import export_run

    with CommandProgress("sr export") as progress:
        result = export_run(
            paths(ctx, experiment),
            run_dir=run_dir,
            formats=[f.strip() for f in formats.split(",") if f.strip()],
            out=out,
            progress=progress,
        )
    typer.echo(
        f"exported {result.per_task_rows} per-task rows, {result.decision_point_rows} decision points"
        + (f", {result.logs} inspect logs" if result.logs else "")
    )
    for path in result.files:
        typer.echo(f"  {path}")
