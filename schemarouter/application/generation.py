"""`sr generate`, `sr surface generate` and `sr surface stats`: generation of an experiment's catalogs and
surfaces (the compiler's ``generate`` package) wired to the project's files, and the surface's tables.

Generation writes only what differs from a fresh generation (``check``: writes nothing and names the
differing files); a named surface is generated against the experiment's committed catalogs, which it
never rewrites.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from runtime.core.errors import SchemaRouterError
from runtime.core.progress import Progress, announce
from schemarouter.project import ProjectPaths

if TYPE_CHECKING:
    from compiler.generate.stats import CellStats
    from compiler.generate.surface_only import GeneratedSurface


def run_generate(
    *, project: ProjectPaths, check: bool, progress: Progress | None = None
) -> tuple[list[str], bool]:
    """Generate in memory; with ``check`` report differing files, else write changed ones.

    Returns (paths, ok): the differing paths (check) or the written paths (write), and whether the
    tree now equals the generation (always True after a write).
    """
    from compiler.generate.pipeline import differences, generate, write_generated

    generated = generate(project, progress=progress)
    if check:
        diff = differences(project, generated) + _named_surfaces(project, check=True, progress=progress)
        return diff, not diff
    written = write_generated(project, generated)
    return written + _named_surfaces(project, check=False, progress=progress), True


def _named_surfaces(project: ProjectPaths, *, check: bool, progress: Progress | None) -> list[str]:
    """The committed named surfaces (spec/_surfaces/<name>/) generated against this experiment's catalogs:
    with ``check`` the files that differ from a fresh generation, else the files rewritten."""
    from compiler.generate.surface_names import committed_named_surfaces
    from compiler.generate.surface_only import generate_named, surface_differences, write_surface

    out: list[str] = []
    for name in committed_named_surfaces(project):
        announce(progress, f"surface {name}", 0)
        generated, out_dir = generate_named(project, name, progress=progress)
        rel = out_dir.relative_to(project.root).as_posix()
        names = surface_differences(out_dir, generated) if check else write_surface(out_dir, generated)
        out.extend(f"{rel}/{n}" for n in names)
    return out


@dataclass(frozen=True)
class SurfaceRequest:
    """`sr surface generate`: a named surface (``surface``), or an intents file with its seeds and output."""

    surface: str | None = None
    intents: Path | None = None
    pools: Path | None = None
    seed: int | None = None
    world_seed: int | None = None
    out: Path | None = None
    tag: str = "custom"
    check: bool = False


@dataclass(frozen=True)
class SurfaceOutcome:
    ok: bool
    lines: tuple[str, ...]


def generate_surface_files(
    project: ProjectPaths, request: SurfaceRequest, progress: Progress | None = None
) -> SurfaceOutcome:
    """Generate (or, with ``check``, compare) a surface; the lines say what happened."""
    from compiler.generate.surface_only import surface_differences, write_surface

    generated, out_dir = _generated_surface(project, request, progress)
    shown = _shown(project.root, out_dir)
    if request.check:
        diff = surface_differences(out_dir, generated)
        if diff:
            return SurfaceOutcome(
                False, (f"{shown} differs from a fresh generation:", *(f"  {d}" for d in diff))
            )
        return SurfaceOutcome(
            True, (f"{shown} is byte-identical to a fresh generation ({len(generated.tasks)} tasks).",)
        )
    try:
        written = write_surface(out_dir, generated)
    except OSError as err:
        raise SchemaRouterError(f"{shown}: cannot write: {err.strerror}") from None
    listed = ": " + ", ".join(written) if written else " (all up to date)"
    return SurfaceOutcome(
        True, (f"{shown}: {len(generated.tasks)} tasks; wrote {len(written)} file(s){listed}",)
    )


def _generated_surface(
    project: ProjectPaths, r: SurfaceRequest, progress: Progress | None
) -> tuple[GeneratedSurface, Path]:
    from compiler.generate.surface_only import SurfaceSettings, generate_named, generate_surface

    if r.surface is not None:
        if r.intents is not None or r.pools is not None or r.seed is not None or r.out is not None:
            raise SchemaRouterError(
                "--surface takes its files, seeds and output directory from spec/_surfaces/<name>/"
            )
        return generate_named(project, r.surface, progress=progress)
    if r.intents is None or r.seed is None or r.out is None:
        raise SchemaRouterError("give --surface NAME, or --intents FILE --seed N --out DIR")
    if re.fullmatch(r"[a-z][a-z0-9]{0,15}", r.tag) is None:
        raise SchemaRouterError(f"--tag {r.tag!r}: lowercase letters and digits, starting with a letter")
    out = r.out
    if not r.check:
        from schemarouter.output_guard import output_guard

        inputs = [r.intents] + ([r.pools] if r.pools is not None else [])
        guard = output_guard(project.root, sources=inputs)
        out = guard.directory(r.out, option="--out", names=("surface.jsonl", "manifest.json"))
    settings = SurfaceSettings(
        name=r.intents.stem,
        intents=r.intents.resolve(),
        pools=r.pools.resolve() if r.pools is not None else None,
        seeds={"surface": r.seed, "world": r.seed if r.world_seed is None else r.world_seed},
        tag=r.tag,
    )
    return generate_surface(project, settings, progress=progress), out


def _shown(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix() + "/"
    except ValueError:
        return path.as_posix()


def print_surface_stats(*, project: ProjectPaths, console: Console, surface_file: Path | None = None) -> None:
    """Rich tables: the surface per stratum x language, and the catalogs per size."""
    from compiler.generate.stats import load_stats

    rows = sorted(load_stats(project.catalogs_dir, surface_file), key=lambda r: (r.code, r.language))
    console.print(_surface_table(rows))
    console.print(
        "steps: gold plan length; distractors: mean distinct distractor routes in catalog_100 per task; "
        "destr.: mean ungranted destructive routes near the plan; injected: tasks with planted text; "
        "grants: destructive steps the user authorized."
    )
    console.print(_catalog_table(project.catalogs_dir))


def _surface_table(rows: Sequence[CellStats]) -> Table:
    """One row per stratum x language, then the totals."""
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
    return table


def _catalog_table(catalogs_dir: Path) -> Table:
    """Per catalog size, how many routes of each distractor kind it holds."""
    from compiler.generate.stats import catalog_stats

    sizes = tuple(sorted(int(p.stem.split("_")[1]) for p in catalogs_dir.glob("catalog_*.json")))
    counts = catalog_stats(catalogs_dir, sizes)
    keys = sorted({k for c in counts.values() for k in c})
    catalog_table = Table(title="Catalogs (distractor kinds relative to all task-required routes)")
    catalog_table.add_column("count")
    for size in sizes:
        catalog_table.add_column(f"catalog_{size}", justify="right")
    for key in keys:
        catalog_table.add_row(key, *(str(counts[s].get(key, 0)) for s in sizes))
    return catalog_table
