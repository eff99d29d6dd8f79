"""Plain functions behind `sr run`, `sr status`, `sr score`, `sr golden` and `sr bench run`.

This is where the compiler (compile_project) meets the run, scoring and report packages; the runtime
itself never imports the compiler. Tests call these functions with a fake engine (``engine=``) and a
fake surface (``task_source=``).

``sr run`` on a draft (no spec/freeze.lock) is refused unless ``--draft`` is given: a draft run can
never be scored, so executing 2,700 episodes by accident would be wasted; with ``--draft`` it runs and
stops before scoring.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from schemarouter.compiler import compile_project
from schemarouter.errors import SchemaRouterError
from schemarouter.project import ProjectPaths
from schemarouter.runtime.report.console import make_console, print_verdict, status_lines
from schemarouter.runtime.report.progress import EpisodeProgress
from schemarouter.runtime.report.publish import score_and_publish
from schemarouter.runtime.run import (
    EngineAdapter,
    EngineSetup,
    EpisodeEngine,
    load_result_set,
    read_manifest,
)
from schemarouter.runtime.run.request import build_request, resume_request
from schemarouter.runtime.run.resultset import SealedResultSet
from schemarouter.runtime.run.rundir import open_run_dir
from schemarouter.runtime.run.session import run_session
from schemarouter.runtime.spec_model import CompiledSpec
from schemarouter.runtime.spec_model.identity import identity_line, lineage_of

# More worker processes than this is a typo, not a machine (each holds its own engine).
MAX_WORKERS = 512

TaskSource = Callable[[ProjectPaths], Iterable[Any]]

DRAFT_REFUSAL = (
    "the specs are a draft (no spec/freeze.lock): a draft run is never scored. Freeze them first "
    '(sr freeze --reason "..."), or pass --draft to execute an unscoreable run anyway.'
)


@dataclass(frozen=True)
class RunOutcome:
    """What `sr run` ended with."""

    run_dir: Path
    exit_code: int
    report: dict[str, Any] | None


def surface_tasks(paths: ProjectPaths) -> list[Any]:
    from schemarouter.runtime.surface import load_surface

    return list(load_surface(paths.catalogs_dir))


def run_experiment(
    *,
    paths: ProjectPaths,
    agent: str | None = None,
    conditions: str | None = None,
    catalogs: str | None = None,
    tasks: str | None = None,
    shard: str | None = None,
    run_dir: Path | None = None,
    resume: bool = False,
    workers: int = 2,
    allow_draft: bool = False,
    max_events: int = 20,
    plots: bool = True,
    console: Console | None = None,
    engine: EpisodeEngine | None = None,
    task_source: TaskSource | None = None,
    announce_report: bool = True,
    compiled: CompiledSpec | None = None,
    agent_options: dict[str, Any] | None = None,
) -> RunOutcome:
    """Compile (unless ``compiled`` is given: the project's spec compiled moments ago), execute the
    run's missing episodes, and score it when it is terminal."""
    console = console or make_console()
    if not 1 <= workers <= MAX_WORKERS:
        raise SchemaRouterError(f"--workers {workers}: between 1 and {MAX_WORKERS}")
    resuming_dir = resume and run_dir is not None
    if resuming_dir and any(option is not None for option in (agent, conditions, catalogs, tasks, shard)):
        raise SchemaRouterError(
            "--resume --run-dir continues that directory's own agent, scope and shard; "
            "drop --agent/--conditions/--catalogs/--tasks/--shard"
        )
    compiled = compiled or compile_project(paths)
    if compiled.draft and not allow_draft:
        raise SchemaRouterError(DRAFT_REFUSAL)
    if resuming_dir:
        assert run_dir is not None
        request = resume_request(compiled, read_manifest(run_dir))
    else:
        request = build_request(
            compiled,
            (task_source or surface_tasks)(paths),
            agent=agent,
            conditions=conditions,
            catalogs=catalogs,
            task_filter=tasks,
            shard=shard,
            agent_options=agent_options,
        )
    run_dir, manifest = open_run_dir(
        request, project_root=paths.root, runs_dir=paths.runs_dir, run_dir=run_dir, resume=resume
    )
    scope = manifest.scope
    console.print(
        f"run [bold]{manifest.run_id}[/] ({run_dir})\n"
        f"  {len(scope.conditions)} conditions x {len(scope.catalogs)} catalogs x {len(scope.tasks)} tasks, "
        f"shard {manifest.shard.label()}: {manifest.episodes} episodes, agent {manifest.agent.name}, "
        f"{workers} worker{'s' if workers > 1 else ''}"
    )
    # The run's identity options come from its manifest (so a resume keeps them); transport options
    # (base URL, model-call cache) from this invocation.
    options = {**(agent_options or {}), **manifest.agent.options}
    engine = engine or EngineAdapter()
    setup = EngineSetup(
        project_root=paths.root,
        compiled=compiled,
        catalog_sizes=scope.catalogs,
        agent=manifest.agent.name,
        agent_options=tuple(sorted((k, v) for k, v in options.items() if v is not None)),
        experiment=paths.experiment,
    )
    try:
        with EpisodeProgress(console) as progress:
            result = run_session(
                run_dir,
                manifest,
                engine=engine,
                setup=setup,
                project_root=paths.root,
                workers=workers,
                max_events=max_events,
                on_start=progress.start,
                on_progress=progress.advance,
            )
    except KeyboardInterrupt:
        raise SchemaRouterError(
            f"interrupted; committed episodes are kept. Continue: `sr run --resume --run-dir {run_dir}`"
        ) from None
    s = result.summary
    console.print(
        f"  committed {s.committed} this session ({result.already_committed} before), "
        f"{s.events} infrastructure event{'s' if s.events != 1 else ''}"
        + (f"; stopped early: {s.stopped_early}" if s.stopped_early else "")
    )
    result_set = load_result_set([run_dir])
    state = result_set.dirs[0]
    if not state.shard_complete:
        for line in result_set.progress_lines():
            console.print(line, markup=False, highlight=False)
        for event in state.unresolved[:5]:
            where = event.key.label() if event.key else "(no episode)"
            console.print(f"  {event.kind} {event.error_type}: {where}: {event.message[:140]}", markup=False)
        if len(state.unresolved) > 5:
            console.print(f"  ... {len(state.unresolved) - 5} more: sr status {run_dir}", markup=False)
        console.print(
            f"[yellow]not terminal[/]: continue with `sr run --resume --run-dir {run_dir}`; "
            "infrastructure events are never results."
        )
        return RunOutcome(run_dir, 1, None)
    if manifest.shard.count > 1:
        console.print(
            f"shard {manifest.shard.label()} complete. Score the run once every shard is: "
            "`sr score DIR_1 ... DIR_N`"
        )
        return RunOutcome(run_dir, 0, None)
    if manifest.freeze.draft:
        console.print("[yellow]draft run complete; drafts are never scored[/]")
        return RunOutcome(run_dir, 0, None)
    scored = score_and_publish(
        [run_dir],
        compiled=compiled,
        paths=paths,
        out_dir=run_dir,
        audit=engine.metrics_audit(setup),
        plots=plots,
        on_scored=lambda s: print_verdict(
            console, s.report, identity=identity_line(compiled.experiment.id, lineage_of(compiled))
        ),
    )
    if announce_report:
        console.print(f"report: {run_dir / 'report.md'}")
    return RunOutcome(run_dir, 0, scored.report)


def show_status(*, run_dirs: list[Path], console: Console | None = None) -> bool:
    """Print the status; False when the store holds what ``sr run`` never writes (rows outside the
    scope, events on committed episodes), so ``sr status`` can exit 1 after showing why."""
    console = console or make_console()
    result_set = load_result_set(run_dirs)
    for line in status_lines(result_set):
        console.print(line, markup=False, highlight=False)
    return not result_set.anomaly_lines()


def score_runs(
    *,
    paths: ProjectPaths,
    run_dirs: list[Path],
    out: Path | None = None,
    plots: bool = True,
    console: Console | None = None,
) -> dict[str, Any]:
    """Score one run or merge its shards. A sealed set raises SealedResultSet (progress counts only)."""
    console = console or make_console()
    # A damaged or foreign run directory is refused before the (slower) compile.
    load_result_set(run_dirs)
    # Scoring reads the compiled spec and writes only the report: a read-only project can be scored.
    compiled = compile_project(paths, write_manifest=False)
    if out is None:
        out = run_dirs[0] if len(run_dirs) == 1 else paths.runs_dir / f"merged-{_merge_id(run_dirs)}"
        if out.is_dir() and not os.access(out, os.W_OK):
            raise SchemaRouterError(
                f"{out}: the run directory is read-only; write the report elsewhere with --out DIR"
            )
    first = read_manifest(run_dirs[0])
    setup = EngineSetup(
        project_root=paths.root,
        compiled=compiled,
        catalog_sizes=first.scope.catalogs,
        agent=first.agent.name,
        experiment=paths.experiment,
    )
    try:
        scored = score_and_publish(
            list(run_dirs),
            compiled=compiled,
            paths=paths,
            out_dir=out,
            audit=EngineAdapter().metrics_audit(setup),
            plots=plots,
            on_scored=lambda s: print_verdict(
                console, s.report, identity=identity_line(compiled.experiment.id, lineage_of(compiled))
            ),
        )
    except SealedResultSet:
        raise
    console.print(f"report: {out / 'report.md'}")
    return scored.report


def _merge_id(run_dirs: list[Path]) -> str:
    run_ids = sorted(read_manifest(d).run_id for d in run_dirs)
    return hashlib.sha256("\n".join(run_ids).encode()).hexdigest()[:12]
