"""`sr cache stats|prune`: the openai agent's model-call cache (option parsing only)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from runtime.core.errors import SchemaRouterError
from schemarouter.cli.app import ExperimentOpt, app, fail, paths

cache_app = typer.Typer(help="The model-call cache of the openai agent.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")

CacheOpt = Annotated[Path | None, typer.Option(help="The cache file (default: runs/model-calls.sqlite).")]


def _path(ctx: typer.Context, cache: Path | None, experiment: str | None) -> Path:
    return cache or paths(ctx, experiment).runs_dir / "model-calls.sqlite"


@cache_app.command("stats")
def stats(ctx: typer.Context, cache: CacheOpt = None, experiment: ExperimentOpt = None) -> None:
    """Entries per server, model and epoch, and their size."""
    from schemarouter.application.model_cache import cache_stats, stats_lines

    try:
        for line in stats_lines(cache_stats(_path(ctx, cache, experiment))):
            typer.echo(line)
    except SchemaRouterError as err:
        raise fail(str(err)) from None


@cache_app.command("prune")
def prune(
    ctx: typer.Context,
    base_url: Annotated[str | None, typer.Option(help="Remove this server's entries.")] = None,
    model: Annotated[str | None, typer.Option(help="Remove this model's entries.")] = None,
    everything: Annotated[bool, typer.Option("--all", help="Remove every entry.")] = False,
    cache: CacheOpt = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Remove entries (of one server and/or model, or all) and entries of earlier versions; vacuum."""
    from schemarouter.application.model_cache import cache_prune

    path = _path(ctx, cache, experiment)
    try:
        removed = cache_prune(path, base_url=base_url, model=model, everything=everything)
    except SchemaRouterError as err:
        raise fail(str(err)) from None
    typer.echo(f"{path}: removed {removed} entries")
