"""`sr generate` (catalogs and task surface) and `sr surface stats`; registered on import by the app."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from schemarouter.cli.app import ExperimentOpt, SurfaceFileOpt, SurfaceOpt, app, fail, paths
from schemarouter.cli.surface_group import surface_app
from schemarouter.project import ProjectPaths


def run_generate(*, project: ProjectPaths, check: bool) -> tuple[list[str], bool]:
    """Generate in memory; with ``check`` report differing files, else write changed ones.

    Returns (paths, ok): the differing paths (check) or the written paths (write), and whether the
    tree now equals the generation (always True after a write).
    """
    from schemarouter.compiler.generate.pipeline import differences, generate, write_generated

    generated = generate(project)
    if check:
        diff = differences(project, generated) + _named_surfaces(project, check=True)
        return diff, not diff
    written = write_generated(project, generated)
    return written + _named_surfaces(project, check=False), True


def _named_surfaces(project: ProjectPaths, *, check: bool) -> list[str]:
    """The committed named surfaces (spec/_surfaces/<name>/) generated against this experiment's catalogs:
    with ``check`` the files that differ from a fresh generation, else the files rewritten."""
    from schemarouter.compiler.generate.surface_only import (
        committed_named_surfaces,
        generate_named,
        surface_differences,
        write_surface,
    )

    out: list[str] = []
    for name in committed_named_surfaces(project):
        generated, out_dir = generate_named(project, name)
        rel = out_dir.relative_to(project.root).as_posix()
        names = surface_differences(out_dir, generated) if check else write_surface(out_dir, generated)
        out.extend(f"{rel}/{n}" for n in names)
    return out


@app.command("generate")
def generate_command(
    ctx: typer.Context,
    check: Annotated[
        bool, typer.Option("--check", help="Exit 1 unless regenerating gives byte-identical files.")
    ] = False,
    experiment: ExperimentOpt = None,
) -> None:
    """Generate catalogs/ (catalogs of every size and the task surface) from spec/ and the seeds."""
    changed, ok = run_generate(project=paths(ctx, experiment), check=check)
    if check:
        if not ok:
            raise fail("catalogs/ differs from a fresh generation:\n" + "\n".join(f"  {p}" for p in changed))
        typer.echo("catalogs/ is byte-identical to a fresh generation.")
        return
    typer.echo(
        f"wrote {len(changed)} file(s)" + (": " + ", ".join(changed) if changed else " (all up to date)")
    )


def print_surface_stats(*, project: ProjectPaths, console: Console, surface_file: Path | None = None) -> None:
    """Rich tables: the surface per stratum x language, and the catalogs per size."""
    from schemarouter.compiler.generate.stats import catalog_stats, load_stats

    rows = sorted(load_stats(project.catalogs_dir, surface_file), key=lambda r: (r.code, r.language))
    table = Table(title="Task surface per stratum x language")
    for column in (
        "stratum",
        "lang",
        "tasks",
        "intents",
        "steps",
        "distractors",
        "destr.",
        "injected",
        "grants",
    ):
        table.add_column(column, justify="left" if column in {"stratum", "lang"} else "right", no_wrap=True)
    for r in rows:
        low, high = r.plan_steps
        table.add_row(
            f"{r.code} {r.stratum}",
            r.language,
            str(r.tasks),
            str(r.intents),
            f"{low}" if low == high else f"{low}-{high}",
            f"{r.distractors:.1f}",
            f"{r.destructive_hazards:.1f}",
            str(r.injected),
            str(r.grants),
        )
    table.add_row(
        "total",
        "",
        str(sum(r.tasks for r in rows)),
        "",
        "",
        "",
        "",
        str(sum(r.injected for r in rows)),
        str(sum(r.grants for r in rows)),
        end_section=True,
    )
    console.print(table)
    console.print(
        "steps: gold plan length; distractors: mean distinct distractor routes in catalog_100 per task; "
        "destr.: mean ungranted destructive routes near the plan; injected: tasks with planted text; "
        "grants: destructive steps the user authorized."
    )
    sizes = tuple(sorted(int(p.stem.split("_")[1]) for p in project.catalogs_dir.glob("catalog_*.json")))
    counts = catalog_stats(project.catalogs_dir, sizes)
    keys = sorted({k for c in counts.values() for k in c})
    catalog_table = Table(title="Catalogs (distractor kinds relative to all task-required routes)")
    catalog_table.add_column("count")
    for size in sizes:
        catalog_table.add_column(f"catalog_{size}", justify="right")
    for key in keys:
        catalog_table.add_row(key, *(str(counts[s].get(key, 0)) for s in sizes))
    console.print(catalog_table)


@surface_app.command("stats")
def surface_stats_command(
    ctx: typer.Context,
    surface: SurfaceOpt = None,
    surface_file: SurfaceFileOpt = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Counts of the frozen surface per stratum x language: plan lengths, distractors, hazards, grants."""
    from schemarouter.application.surfaces import choose_surface
    from schemarouter.runtime.report.console import pilot_line

    console = Console(width=max(Console().width, 140))
    project = paths(ctx, experiment)
    chosen = choose_surface(project, surface=surface, surface_file=surface_file)
    if chosen.pilot is not None:
        console.print(pilot_line(chosen.pilot.name), markup=False, highlight=False)
    print_surface_stats(project=project, console=console, surface_file=chosen.file)
