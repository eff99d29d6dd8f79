"""`sr explain`, `sr compare`: option parsing over the library's ``explain`` and ``compare``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from schemarouter.cli.app import app, paths, project_root


@app.command()
def explain(
    ctx: typer.Context,
    run_dir: Annotated[Path, typer.Argument(help="A scored run directory (or sr score --out DIR).")],
    condition: Annotated[str | None, typer.Option(help="Only this condition.")] = None,
    catalog: Annotated[int | None, typer.Option(help="Only this catalog size.")] = None,
) -> None:
    """Why the verdict: Recall@5 by transition, stratum and language, the failure taxonomy, refresh
    anatomy and per-task flips, from the stored traces (report.json diagnostics)."""
    from schemarouter.api import explain as explain_run

    typer.echo(explain_run(run_dir, condition=condition, catalog=catalog, project=paths(ctx)).text)


@app.command()
def compare(
    ctx: typer.Context,
    run_a: Annotated[Path, typer.Argument(help="Scored run directory A.")],
    run_b: Annotated[Path, typer.Argument(help="Scored run directory B.")],
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the comparison as JSON here.")
    ] = None,
) -> None:
    """Paired differences B - A per metric over the common tasks, with bootstrap intervals and flips.
    Runs of different experiments or freeze roots may be compared (never for a gate)."""
    from schemarouter.api import compare as compare_runs
    from schemarouter.output_guard import output_guard

    guard = output_guard(project_root(ctx))
    if json_out is not None:
        guard.file(json_out, option="--json")
    comparison = compare_runs(run_a, run_b)
    typer.echo(comparison.text)
    if json_out is not None:
        text = json.dumps(comparison.data, ensure_ascii=False, indent=2) + "\n"
        guard.write_text(json_out, text, option="--json")
