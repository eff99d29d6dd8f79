"""`sr llm-smoke`: the whole path with a real local model (llama.cpp server, Gemma 3 270M)."""

from __future__ import annotations

from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, app, paths


@app.command("llm-smoke")
def llm_smoke(
    ctx: typer.Context,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Call the server every time; read and write no cache.")
    ] = False,
    experiment: ExperimentOpt = None,
) -> None:
    """Serve Gemma 3 270M with llama.cpp on loopback, run a 20-episode subset with the openai agent,
    score it as its own terminal set, and stop the server. Needs `pip install -e '.\\[llm]'`."""
    from schemarouter.application.llm_smoke import run_smoke

    result = run_smoke(paths=paths(ctx, experiment), no_cache=no_cache)
    typer.echo(f"llm smoke: {result.run_dir} in {result.wall_s:.1f} s; model calls: {result.model_calls}")
    if result.token_agreement is not None:
        from schemarouter.application.token_agreement import agreement_line

        typer.echo(agreement_line(result.token_agreement))
    typer.echo(f"server log: {result.server_log}")
