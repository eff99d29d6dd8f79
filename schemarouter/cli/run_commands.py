"""`sr run`, `sr status`, `sr score`, `sr golden`, `sr bench run`: thin typer commands over plain functions.

The plain functions live in :mod:`schemarouter.cli.run_flow` and :mod:`schemarouter.cli.reference_flow`;
this module parses options, turns a SchemaRouterError into stderr + exit 1, and sets the exit code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, SurfaceFileOpt, SurfaceOpt, app, fail, paths
from schemarouter.cli.bench_group import bench_app
from schemarouter.cli.model_options import (
    BaseUrlOpt,
    ConstrainedOpt,
    MaxTokensOpt,
    ModelCacheOpt,
    ModelOpt,
    NoCacheOpt,
    ResultsAsTextOpt,
    SeedOpt,
    ServerTemplateOpt,
    TemperatureOpt,
    TopPOpt,
    model_options,
)
from schemarouter.errors import SchemaRouterError


@app.command()
def run(
    ctx: typer.Context,
    agent: Annotated[
        str | None, typer.Option(help="Agent from spec/agent.yaml (default: its default_agent, reference).")
    ] = None,
    conditions: Annotated[
        str | None, typer.Option(help="Comma-separated condition IDs or codes (C1..C5). Default: all five.")
    ] = None,
    catalogs: Annotated[
        str | None, typer.Option(help="Comma-separated catalog sizes (100,250,500). Default: all three.")
    ] = None,
    tasks: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated task IDs, strata (two_step_state or S1) and languages (en): strata and "
            "languages intersect, IDs are added. Default: all 180."
        ),
    ] = None,
    shard: Annotated[
        str | None, typer.Option(help="K/N: run shard K of N (round-robin over the canonical order).")
    ] = None,
    run_dir: Annotated[
        Path | None, typer.Option(help="Run directory (default: runs/<run_id>/, a new one).")
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            help="Continue a run: skip committed episodes, re-run the rest (infrastructure events included). "
            "With --run-dir, that directory's own scope; without, the newest run with the same options."
        ),
    ] = False,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes (one engine each).")] = 2,
    draft: Annotated[
        bool, typer.Option(help="Allow executing without spec/freeze.lock; such a run is never scored.")
    ] = False,
    max_events: Annotated[
        int, typer.Option(min=1, help="Stop scheduling after this many infrastructure events in a session.")
    ] = 20,
    plots: Annotated[bool, typer.Option(help="Write the PNG plots after scoring.")] = True,
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
    tool_results_as_text: ResultsAsTextOpt = None,
    epochs: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Trials per episode, each with its own derived seed; reports add pass^k and the pass "
            "rate over epochs (default 1).",
        ),
    ] = None,
    tokenizer_json: Annotated[
        Path | None,
        typer.Option(help="Count tokens with this Hugging Face tokenizer.json instead of cl100k_base."),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, help="Episodes in flight against a model server at once (sets --workers)."),
    ] = None,
    surface: SurfaceOpt = None,
    surface_file: SurfaceFileOpt = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Run the experiment (all 2,700 episodes by default), then score it and print the gate verdict.

    With --surface dev or --surface-file: a PILOT on that surface (any experiment, draft or frozen),
    scored as a pilot and never recorded as scoring in any lock."""
    from schemarouter.cli import run_flow

    project = paths(ctx, experiment)
    agent_options = model_options(
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
    )
    agent_options["tokenizer_json"] = str(tokenizer_json.resolve()) if tokenizer_json else None
    try:
        code = run_flow.run_experiment(
            paths=project,
            agent_options=agent_options,
            agent=agent,
            conditions=conditions,
            catalogs=catalogs,
            tasks=tasks,
            shard=shard,
            run_dir=run_dir,
            resume=resume,
            workers=concurrency or workers,
            allow_draft=draft,
            max_events=max_events,
            plots=plots,
            surface=surface,
            surface_file=surface_file,
            epochs=epochs,
        ).exit_code
    except SchemaRouterError as err:
        raise fail(str(err)) from None
    raise typer.Exit(code)


@app.command()
def status(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="A run directory, or the shard directories of one run.")
    ],
) -> None:
    """Progress and infrastructure events of a run. Never an outcome."""
    from schemarouter.cli import run_flow

    try:
        consistent = run_flow.show_status(run_dirs=run_dirs)
    except SchemaRouterError as err:
        raise fail(str(err)) from None
    if not consistent:
        raise typer.Exit(1)


@app.command()
def score(
    ctx: typer.Context,
    run_dirs: Annotated[
        list[Path], typer.Argument(help="A run directory, or every shard directory of one run.")
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Where to write the report (default: the run directory; runs/merged-<id>/ for shards)."
        ),
    ] = None,
    plots: Annotated[bool, typer.Option(help="Write the PNG plots.")] = True,
    experiment: ExperimentOpt = None,
) -> None:
    """Score a terminal run (or merge its shards) and print the gate verdict.

    A set that is not terminal is sealed: exit 1 with progress counts only.
    """
    from schemarouter.cli import run_flow

    try:
        run_flow.score_runs(paths=paths(ctx, experiment), run_dirs=run_dirs, out=out, plots=plots)
    except SchemaRouterError as err:
        raise fail(str(err)) from None


@app.command()
def golden(
    ctx: typer.Context,
    update: Annotated[bool, typer.Option("--update", help="Rewrite golden/ from the reference run.")] = False,
    check: Annotated[bool, typer.Option("--check", help="Compare golden/ with the reference run.")] = False,
    run_dir: Annotated[
        Path | None,
        typer.Option(help="Use this scored, full reference run instead of running a fresh one."),
    ] = None,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes for a fresh run.")] = 2,
    experiment: ExperimentOpt = None,
) -> None:
    """Pin (--update) or check (--check) the reference run's gate output and metric point estimates.

    The fresh reference run happens in a frozen scratch copy under build/, deleted afterwards, so it
    records nothing in the project's spec/freeze.lock.
    """
    from schemarouter.cli import reference_flow

    if update == check:
        raise fail("give exactly one of --update and --check")
    try:
        ok = reference_flow.golden(
            paths=paths(ctx, experiment), update=update, run_dir=run_dir, workers=workers
        )
    except SchemaRouterError as err:
        raise fail(str(err)) from None
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
    from schemarouter.cli import reference_flow

    try:
        reference_flow.bench(paths=paths(ctx, experiment), workers=workers)
    except SchemaRouterError as err:
        raise fail(str(err)) from None
