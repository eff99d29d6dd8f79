"""`sr bench serve`: option parsing over :mod:`schemarouter.application.bench_serve`.

Registered on ``sr bench`` by :mod:`schemarouter.cli.bench_group`'s app; heavy imports happen inside.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, paths
from schemarouter.cli.bench_group import bench_app

ServeExecutorOpt = Annotated[
    str,
    typer.Option(
        help="Where the model runs' episodes run (sr run --executor: local, or ray with the ray "
        "extra, a local Ray per run); the ideal's reference run stays local."
    ),
]
ConstrainedOpt = Annotated[
    bool, typer.Option("--constrained-decoding", help="Send the constrained-decoding request form.")
]


@bench_app.command("serve")
def bench_serve_command(
    ctx: typer.Context,
    concurrency: Annotated[
        str, typer.Option(help="Comma-separated episodes in flight (sr run --concurrency), one run each.")
    ] = "1,16,64,256",
    latency: Annotated[float, typer.Option(help="Seconds the loopback server waits before answering.")] = 1.0,
    jitter: Annotated[float, typer.Option(help="Extra uniform delay in [0, jitter] seconds.")] = 0.0,
    error_rate: Annotated[float, typer.Option(help="Share of requests answered 503 (then retried).")] = 0.0,
    per_slot: Annotated[
        int, typer.Option(min=1, help="At most this many episodes per slot (N x this per run).")
    ] = 20,
    workers: Annotated[
        int, typer.Option(min=1, help="Worker processes of each run (at most N; each streams its share).")
    ] = 2,
    inspect: Annotated[
        bool, typer.Option(help="Drive inspect_ai's async client against the same server (bench extra).")
    ] = True,
    executor: ServeExecutorOpt = "local",
    constrained_decoding: ConstrainedOpt = False,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Each invocation's runs and logs go to a new <out>/<UTC time>/ (default out: "
            "build/bench-serve/; output guard)."
        ),
    ] = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Episodes in flight against a loopback model server with a set latency, per N: wall, ideal,
    occupancy, peak RSS, and inspect_ai's async client beside it. Pilots on the development surface:
    nothing is recorded in any lock."""
    from runtime.report.console import make_console
    from schemarouter.application.bench import parse_sizes
    from schemarouter.application.bench_serve import ServeBench, run_serve_bench

    project = paths(ctx, experiment)
    bench = ServeBench(
        concurrencies=tuple(parse_sizes(concurrency, "--concurrency")),
        latency_s=latency,
        jitter_s=jitter,
        error_rate=error_rate,
        per_slot=per_slot,
        workers=workers,
        inspect=inspect,
        constrained=constrained_decoding,
        executor=executor,
    )
    target = out if out is not None else project.build_dir / "bench-serve"
    run_serve_bench(project, bench, target, make_console(log_width=220))
