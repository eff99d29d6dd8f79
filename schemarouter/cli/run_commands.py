"""`sr run`, `sr status`, `sr score`, `sr golden`, `sr bench run`: option parsing over
:mod:`schemarouter.application.run`, :mod:`~schemarouter.application.score` and
:mod:`~schemarouter.application.reference_run`. Errors are turned into one line by the root group."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from schemarouter.cli.app import ExperimentOpt, SurfaceFileOpt, SurfaceOpt, app, fail, paths
from schemarouter.cli.bench_group import bench_app
from schemarouter.cli.model_options import MODEL_OPTIONS, model_options
from schemarouter.cli.option_groups import OptionGroup, with_options
from schemarouter.project import ProjectPaths

if TYPE_CHECKING:
    from schemarouter.application.run import RunRequest

AgentOpt = Annotated[
    str | None, typer.Option(help="Agent from spec/agent.yaml (default: its default_agent, reference).")
]
ConditionsOpt = Annotated[
    str | None, typer.Option(help="Comma-separated condition IDs or codes (C1..C5). Default: all five.")
]
CatalogsOpt = Annotated[
    str | None, typer.Option(help="Comma-separated catalog sizes (100,250,500). Default: all three.")
]
TasksOpt = Annotated[
    str | None,
    typer.Option(
        help="Comma-separated task IDs, strata (two_step_state or S1) and languages (en): strata and "
        "languages intersect, IDs are added. Default: all 180."
    ),
]
ShardOpt = Annotated[
    str | None, typer.Option(help="K/N: run shard K of N (round-robin over the canonical order).")
]
RunDirOpt = Annotated[Path | None, typer.Option(help="Run directory (default: runs/<run_id>/, a new one).")]
ResumeOpt = Annotated[
    bool,
    typer.Option(
        help="Continue a run: skip committed episodes, re-run the rest (infrastructure events included). "
        "With --run-dir, that directory's own scope; without, the newest run with the same options."
    ),
]
WorkersOpt = Annotated[
    int, typer.Option(min=1, help="Worker processes (one engine each; at most --concurrency of them).")
]
DraftOpt = Annotated[
    bool, typer.Option(help="Allow executing without spec/freeze.lock; such a run is never scored.")
]
MaxEventsOpt = Annotated[
    int, typer.Option(min=1, help="Stop scheduling after this many infrastructure events in a session.")
]
PlotsOpt = Annotated[
    bool,
    typer.Option(
        help="Also write the four figures as PNG files (matplotlib) beside report.md, which then embeds "
        "them; report.html draws them as inline SVG either way."
    ),
]
PlotSvgOpt = Annotated[
    bool, typer.Option(help="Write the PNG plots and an SVG beside each (implies --plots).")
]
TokenizerOpt = Annotated[
    Path | None,
    typer.Option(help="Count tokens with this Hugging Face tokenizer.json instead of cl100k_base."),
]
ConcurrencyOpt = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Model requests in flight at once, N in all, shared out over the --workers processes (each "
        "on threads over its one engine, with half as many episodes again built up to their model "
        "call); on --executor ray the processes are its actors.",
    ),
]
EpochsOpt = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="Trials per episode, each with its own derived seed; reports add pass^k and the pass rate "
        "over epochs (default 1).",
    ),
]
ExecutorOpt = Annotated[
    str,
    typer.Option(
        help="Where episodes run: local (this machine's worker processes) or ray (actors on a Ray "
        "cluster; needs pip install -e '.[ray]')."
    ),
]
RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        help="--executor ray: the cluster to join (e.g. 10.0.0.5:6379, or auto for this machine's "
        "`ray start`). Default: start a local Ray sized to this machine."
    ),
]
RunDirsArg = Annotated[
    list[Path], typer.Argument(help="A run directory, or every shard directory of one run.")
]


def run_request(project: ProjectPaths, params: dict[str, Any]) -> RunRequest:
    """`sr run`'s parsed options as the application's request; the model flags become the agent's options
    (``None``: the agent spec's value)."""
    from schemarouter.application.run import RunRequest

    p = params
    options = model_options(
        p, default_cache=project.runs_dir / "model-calls.sqlite", project_root=project.root
    )
    options["tokenizer_json"] = str(p["tokenizer_json"].resolve()) if p["tokenizer_json"] else None
    scope = {
        k: p[k] for k in ("agent", "conditions", "catalogs", "tasks", "shard", "surface", "surface_file")
    }
    return RunRequest(
        **scope,
        run_dir=p["run_dir"],
        resume=p["resume"],
        workers=p["workers"],
        concurrency=p["concurrency"],
        allow_draft=p["draft"],
        max_events=p["max_events"],
        plots=p["plots"],
        plot_svg=p["plot_svg"],
        agent_options=options,
        epochs=p["epochs"],
        executor=p["executor"],
        ray_address=p["ray_address"],
    )


RUN_OPTIONS: OptionGroup = (
    ("agent", AgentOpt, None),
    ("conditions", ConditionsOpt, None),
    ("catalogs", CatalogsOpt, None),
    ("tasks", TasksOpt, None),
    ("shard", ShardOpt, None),
    ("run_dir", RunDirOpt, None),
    ("resume", ResumeOpt, False),
    ("workers", WorkersOpt, 2),
    ("draft", DraftOpt, False),
    ("max_events", MaxEventsOpt, 20),
    ("plots", PlotsOpt, False),
    ("plot_svg", PlotSvgOpt, False),
)
EXECUTION_OPTIONS: OptionGroup = (
    ("epochs", EpochsOpt, None),
    ("tokenizer_json", TokenizerOpt, None),
    ("concurrency", ConcurrencyOpt, None),
    ("executor", ExecutorOpt, "local"),
    ("ray_address", RayAddressOpt, None),
    ("surface", SurfaceOpt, None),
    ("surface_file", SurfaceFileOpt, None),
    ("experiment", ExperimentOpt, None),
)


@app.command()
@with_options(RUN_OPTIONS, MODEL_OPTIONS, EXECUTION_OPTIONS)
def run(ctx: typer.Context, **options: Any) -> None:
    """Run the experiment (all 2,700 episodes by default), score it and print the gate verdict."""
    from schemarouter.application.run import run_experiment

    project = paths(ctx, options["experiment"])
    from runtime.report.command_progress import CommandProgress
    from schemarouter.application.run import RunDeps

    deps = RunDeps(compile_progress=lambda: CommandProgress("sr run: compile"))
    raise typer.Exit(run_experiment(project, run_request(project, ctx.params), deps).exit_code)


@app.command()
def status(run_dirs: RunDirsArg) -> None:
    """Progress and infrastructure events of a run. Never an outcome."""
    from schemarouter.application.score import show_status

    if not show_status(run_dirs):
        raise typer.Exit(1)


@app.command()
def score(
    ctx: typer.Context,
    run_dirs: RunDirsArg,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Where to write the report (default: the run directory; runs/merged-<id>/ for shards)."
        ),
    ] = None,
    plots: PlotsOpt = False,
    plot_svg: PlotSvgOpt = False,
    experiment: ExperimentOpt = None,
) -> None:
    """Score a terminal run (or merge its shards) and print the gate verdict.

    A set that is not terminal is sealed: exit 1 with progress counts only.
    """
    from runtime.report.console import make_console
    from schemarouter.api import score as score_runs

    score_runs(
        run_dirs,
        project=paths(ctx, experiment),
        out=out,
        plots=plots,
        plot_svg=plot_svg,
        console=make_console(),
    )


@app.command()
def golden(
    ctx: typer.Context,
    update: Annotated[bool, typer.Option("--update", help="Rewrite golden/ from the reference run.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Compare golden/ with the reference run.")] = False,
    run_dir: Annotated[
        Path | None, typer.Option(help="Use this scored, full reference run instead of running a fresh one.")
    ] = None,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes for a fresh run.")] = 2,
    experiment: ExperimentOpt = None,
) -> None:
    """Pin (--update) or check (--check) the reference run's gate output and metric point estimates.

    The fresh reference run happens in a frozen scratch copy under build/, deleted afterwards, so it
    records nothing in the project's spec/freeze.lock.
    """
    from schemarouter.application.reference_run import GoldenRequest
    from schemarouter.application.reference_run import golden as golden_check

    if update == check:
        raise fail("give exactly one of --update and --check")
    ok = golden_check(paths(ctx, experiment), GoldenRequest(update, run_dir, workers))
    raise typer.Exit(0 if ok else 1)


@bench_app.command("run")
def bench_run(
    ctx: typer.Context,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 2,
    experiment: ExperimentOpt = None,
) -> None:
    """Time the full reference run (episodes) and the bootstrap separately; print episodes per second.

    Runs in a frozen scratch copy under build/ that is deleted afterwards; shows timings only, no
    outcome, and records nothing in the project's spec/freeze.lock.
    """
    from schemarouter.application.reference_run import bench

    bench(paths(ctx, experiment), workers)
