"""`sr bench scale` and `sr bench anchor`: option parsing over :mod:`schemarouter.application.bench`.

Registered on ``sr bench`` by :mod:`schemarouter.cli.bench_group`. Heavy imports happen inside the
commands, so `sr --help` does not pay for them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, paths
from schemarouter.cli.bench_group import bench_app

SCALE_SIZES = "100,500,5000,50000"


@bench_app.command("scale")
def bench_scale_command(
    ctx: typer.Context,
    sizes: Annotated[
        str, typer.Option(help="Comma-separated catalog sizes; beyond the real 100/250/500, synthetic.")
    ] = SCALE_SIZES,
    conditions: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated condition IDs (default: one top-k, the state-refresh and the full one)."
        ),
    ] = None,
    tasks: Annotated[
        int | None, typer.Option(min=1, help="Tasks per condition and size, spread over the surface.")
    ] = 30,
    experiment: ExperimentOpt = None,
) -> None:
    """Per-episode and per-turn CPU of SR-5 and FULL as the catalog grows (100 / 500 / 5k / 50k)."""
    from runtime.report.console import make_console
    from schemarouter.application.bench import bench_scale, parse_sizes, print_scale

    rows, policies = bench_scale(
        project=paths(ctx, experiment),
        sizes=parse_sizes(sizes, "--sizes"),
        conditions=[c.strip() for c in (conditions or "").split(",") if c.strip()] or None,
        tasks=tasks,
    )
    print_scale(make_console(log_width=160), rows, policies)


@bench_app.command("anchor")
def bench_anchor_command(
    ctx: typer.Context,
    tasks: Annotated[
        int | None, typer.Option(min=1, help="Tasks of the surface (default: all 180, the reference run).")
    ] = None,
    samples: Annotated[int, typer.Option(min=1, help="inspect_ai samples per eval.")] = 500,
    repeats: Annotated[int, typer.Option(min=1, help="Interleaved measurements; medians are printed.")] = 3,
    experiment: ExperimentOpt = None,
) -> None:
    """Our CPU per model turn over the reference run beside inspect_ai's mockllm (needs the bench extra)."""
    from runtime.report.console import make_console
    from schemarouter.application.bench import bench_anchor

    console = make_console(log_width=160)
    bench_anchor(
        project=paths(ctx, experiment), tasks=tasks, samples=samples, repeats=repeats, console=console
    )
