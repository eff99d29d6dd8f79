"""`sr surface generate`: option parsing over :mod:`schemarouter.application.generation` (a task surface from
any intents file, or a named surface such as ``dev``, against an experiment's committed catalogs, which it
never changes). Registered on import by the app."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, fail, paths
from schemarouter.cli.surface_group import surface_app

IntentsOpt = Annotated[
    Path | None, typer.Option("--intents", help="An intents file (format: compiler/generate/README.md).")
]
PoolsOpt = Annotated[
    Path | None, typer.Option("--pools", help="Extra slot pools, added to the experiment's own.")
]
SeedOpt = Annotated[int | None, typer.Option("--seed", help="The sampling seed (named seed 'surface').")]
WorldSeedOpt = Annotated[
    int | None, typer.Option("--world-seed", help="The world seed (named seed 'world'; default: --seed).")
]
OutOpt = Annotated[Path | None, typer.Option("--out", help="Where surface.jsonl and manifest.json go.")]
TagOpt = Annotated[str, typer.Option("--tag", help="Task ids are <stratum>-<lang>-<tag>-<nn>.")]
NamedOpt = Annotated[
    str | None,
    typer.Option("--surface", help="A named surface of spec/_surfaces/ (e.g. dev) instead of --intents."),
]
CheckOpt = Annotated[
    bool, typer.Option("--check", help="Exit 1 unless the committed files equal a fresh generation.")
]


@surface_app.command("generate")
def surface_generate_command(
    ctx: typer.Context,
    intents: IntentsOpt = None,
    pools: PoolsOpt = None,
    seed: SeedOpt = None,
    world_seed: WorldSeedOpt = None,
    out: OutOpt = None,
    tag: TagOpt = "custom",
    surface: NamedOpt = None,
    check: CheckOpt = False,
    experiment: ExperimentOpt = None,
) -> None:
    """Generate a task surface against an experiment's committed catalogs (they are never rewritten)."""
    from runtime.report.command_progress import CommandProgress
    from schemarouter.application.generation import SurfaceRequest, generate_surface_files

    request = SurfaceRequest(surface, intents, pools, seed, world_seed, out, tag, check)
    with CommandProgress("sr surface generate") as progress:
        outcome = generate_surface_files(paths(ctx, experiment), request, progress)
    if not outcome.ok:
        raise fail("\n".join(outcome.lines))
    typer.echo("\n".join(outcome.lines))
