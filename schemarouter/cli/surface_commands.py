"""`sr surface generate`: a task surface from any intents file (or a named surface such as ``dev``)
against an experiment's committed catalogs, which it never changes. Registered on import by the app."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, fail, paths
from schemarouter.cli.surface_group import surface_app
from schemarouter.errors import SchemaRouterError


@surface_app.command("generate")
def surface_generate_command(
    ctx: typer.Context,
    intents: Annotated[
        Path | None, typer.Option("--intents", help="An intents file (format: compiler/generate/README.md).")
    ] = None,
    pools: Annotated[
        Path | None, typer.Option("--pools", help="Extra slot pools, added to the experiment's own.")
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="The sampling seed (named seed 'surface').")
    ] = None,
    world_seed: Annotated[
        int | None, typer.Option("--world-seed", help="The world seed (named seed 'world'; default: --seed).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Where surface.jsonl and manifest.json go.")
    ] = None,
    tag: Annotated[str, typer.Option("--tag", help="Task ids are <stratum>-<lang>-<tag>-<nn>.")] = "custom",
    surface: Annotated[
        str | None,
        typer.Option("--surface", help="A named surface of spec/_surfaces/ (e.g. dev) instead of --intents."),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Exit 1 unless the committed files equal a fresh generation.")
    ] = False,
    experiment: ExperimentOpt = None,
) -> None:
    """Generate a task surface against an experiment's committed catalogs (they are never rewritten)."""
    from schemarouter.compiler.generate.surface_only import (
        SurfaceSettings,
        generate_named,
        generate_surface,
        surface_differences,
        write_surface,
    )

    project = paths(ctx, experiment)
    if surface is not None:
        if intents is not None or pools is not None or seed is not None or out is not None:
            raise fail("--surface takes its files, seeds and output directory from spec/_surfaces/<name>/")
        generated, out_dir = generate_named(project, surface)
    else:
        if intents is None or seed is None or out is None:
            raise fail("give --surface NAME, or --intents FILE --seed N --out DIR")
        if not _tag_ok(tag):
            raise fail(f"--tag {tag!r}: lowercase letters and digits, starting with a letter")
        settings = SurfaceSettings(
            name=intents.stem,
            intents=intents.resolve(),
            pools=pools.resolve() if pools is not None else None,
            seeds={"surface": seed, "world": seed if world_seed is None else world_seed},
            tag=tag,
        )
        generated = generate_surface(project, settings)
        out_dir = out
    shown = _shown(project.root, out_dir)
    if check:
        diff = surface_differences(out_dir, generated)
        if diff:
            raise fail(f"{shown} differs from a fresh generation:\n" + "\n".join(f"  {d}" for d in diff))
        typer.echo(f"{shown} is byte-identical to a fresh generation ({len(generated.tasks)} tasks).")
        return
    try:
        written = write_surface(out_dir, generated)
    except OSError as err:
        raise SchemaRouterError(f"{shown}: cannot write: {err.strerror}") from None
    typer.echo(
        f"{shown}: {len(generated.tasks)} tasks; wrote {len(written)} file(s)"
        + (": " + ", ".join(written) if written else " (all up to date)")
    )


def _tag_ok(tag: str) -> bool:
    return re.fullmatch(r"[a-z][a-z0-9]{0,15}", tag) is not None


def _shown(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix() + "/"
    except ValueError:
        return path.as_posix()
