"""`sr episode`: run one episode and print a readable trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from schemarouter.atomic_write import check_output_file, write_output_file
from schemarouter.cli.app import ExperimentOpt, SurfaceFileOpt, SurfaceOpt, app, paths
from schemarouter.cli.model_options import (
    BaseUrlOpt,
    ConstrainedOpt,
    MaxTokensOpt,
    ModelCacheOpt,
    ModelOpt,
    NoCacheOpt,
    ResultsAsTextOpt,
    SeedOpt,
    ServerIdOpt,
    ServerTemplateOpt,
    TemperatureOpt,
    TopPOpt,
    model_options,
)


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
    base_url: BaseUrlOpt = None,
    model: ModelOpt = None,
    constrained_decoding: ConstrainedOpt = None,
    model_cache: ModelCacheOpt = None,
    no_cache: NoCacheOpt = False,
    max_tokens: MaxTokensOpt = None,
    temperature: TemperatureOpt = None,
    top_p: TopPOpt = None,
    seed: SeedOpt = None,
    server_template: ServerTemplateOpt = None,
    server_id: ServerIdOpt = None,
    tool_results_as_text: ResultsAsTextOpt = None,
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
    options = model_options(
        base_url=base_url,
        model=model,
        constrained_decoding=constrained_decoding,
        cache_path=model_cache or project.runs_dir / "model-calls.sqlite",
        no_cache=no_cache,
        max_tokens=max_tokens,
        temperature=temperature,
        top_p=top_p,
        seed=seed,
        server_template=server_template,
        tool_results_as_text=tool_results_as_text,
        server_id=server_id,
    )
    request = EpisodeRequest(task_id, condition, catalog, agent, tokenizer, chosen.file, options)
    trace = run_single_episode(project, request)
    render_trace(trace)
    if json_out is not None:
        text = json.dumps(trace.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"
        write_output_file(json_out, text, option="--json")
