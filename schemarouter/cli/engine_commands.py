"""`sr episode`: run one episode and print a readable trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from schemarouter.atomic_write import check_output_file, write_output_file
from schemarouter.cli.app import ExperimentOpt, SurfaceFileOpt, SurfaceOpt, app, paths


@app.command()
def episode(
    ctx: typer.Context,
    task_id: Annotated[str, typer.Argument(help="Task ID from the surface, e.g. S1-en-01.")],
    condition: Annotated[
        str | None,
        typer.Option(
            help="Condition ID from the experiment's conditions.yaml (default: the gate's treatment)."
        ),
    ] = None,
    catalog: Annotated[int, typer.Option(help="Catalog size: 100, 250 or 500.")] = 100,
    agent: Annotated[str, typer.Option(help="Agent: reference, adversarial or openai.")] = "reference",
    tokenizer_json: Annotated[
        Path | None, typer.Option(help="Count tokens with this Hugging Face tokenizer.json instead.")
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the full trace JSON here.")
    ] = None,
    surface: SurfaceOpt = None,
    surface_file: SurfaceFileOpt = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Run one episode and print its trace: exposure, retrieval calls, decisions, gate, results, state."""
    from schemarouter.application.episode import EpisodeRequest, run_single_episode
    from schemarouter.application.surfaces import choose_surface
    from schemarouter.runtime.engine.show import render_trace
    from schemarouter.runtime.report.console import pilot_line

    if json_out is not None:
        check_output_file(json_out, option="--json")
    project = paths(ctx, experiment)
    chosen = choose_surface(project, surface=surface, surface_file=surface_file)
    if chosen.pilot is not None:
        typer.echo(pilot_line(chosen.pilot.name))
    tokenizer = str(tokenizer_json) if tokenizer_json else None
    request = EpisodeRequest(task_id, condition, catalog, agent, tokenizer, chosen.file)
    trace = run_single_episode(project, request)
    render_trace(trace)
    if json_out is not None:
        text = json.dumps(trace.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"
        write_output_file(json_out, text, option="--json")
