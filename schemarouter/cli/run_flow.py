"""Plain functions behind `sr run`, `sr status`, `sr score`, `sr golden` and `sr bench run`.

This is where the compiler (compile_project) meets the run, scoring and report packages; the runtime
itself never imports the compiler. Tests call these functions with a fake engine (``engine=``) and a
fake surface (``task_source=``).

``sr run`` on a draft (no spec/freeze.lock) is refused unless ``--draft`` is given: a draft run can
never be scored, so executing 2,700 episodes by accident would be wasted; with ``--draft`` it runs and
stops before scoring.

``sr run --surface dev`` / ``--surface-file FILE`` is a pilot: any experiment, draft or frozen, on a
surface other than the evaluation surface. It is marked PILOT on the console, in report.md,
report.json and the run manifest, is scored as a pilot when terminal, and is never recorded as scoring
in any lock.
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
from schemarouter.runtime.report.console import make_console, pilot_line, print_verdict, status_lines
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
    surface: str | None = None,
    surface_file: Path | None = None,
    epochs: int | None = None,
) -> RunOutcome:
    """Compile (unless ``compiled`` is given: the project's spec compiled moments ago), execute the
    run's missing episodes, and score it when it is terminal."""
    from schemarouter.application.surfaces import ChosenSurface, choose_surface, pilot_surface_file

    console = console or make_console()
    if not 1 <= workers <= MAX_WORKERS:
        raise SchemaRouterError(f"--workers {workers}: between 1 and {MAX_WORKERS}")
    resuming_dir = resume and run_dir is not None
    if resuming_dir and any(
        option is not None
        for option in (agent, conditions, catalogs, tasks, shard, surface, surface_file, epochs)
    ):
        raise SchemaRouterError(
            "--resume --run-dir continues that directory's own agent, scope, shard and surface; "
            "drop --agent/--conditions/--catalogs/--tasks/--shard/--surface/--surface-file/--epochs"
        )
    compiled = compiled or compile_project(paths)
    if resuming_dir:
        assert run_dir is not None
        previous = read_manifest(run_dir)
        chosen = (
            ChosenSurface()
            if previous.surface is None
            else ChosenSurface(previous.surface, pilot_surface_file(paths, previous.surface))
        )
    else:
        chosen = choose_surface(paths, surface=surface, surface_file=surface_file)
    pilot = chosen.pilot
    if compiled.draft and not allow_draft and pilot is None:
        raise SchemaRouterError(DRAFT_REFUSAL)
    if pilot is not None:
        console.print(pilot_line(pilot.name), markup=False, highlight=False)
    if resuming_dir:
        request = resume_request(compiled, previous)
    else:
        source = task_source or (surface_tasks if pilot is None else chosen.tasks)
        request = build_request(
            compiled,
            source(paths),
            agent=agent,
            conditions=conditions,
            catalogs=catalogs,
            task_filter=tasks,
            shard=shard,
            agent_options=agent_options,
            surface=pilot,
            epochs=1 if epochs is None else epochs,
        )
    run_dir, manifest = open_run_dir(
        request, project_root=paths.root, runs_dir=paths.runs_dir, run_dir=run_dir, resume=resume
    )
    scope = manifest.scope
    if compiled.draft and pilot is None:
        _record_peek(paths, manifest, console)
    console.print(
        f"run [bold]{manifest.run_id}[/] ({run_dir})\n"
        f"  {len(scope.conditions)} conditions x {len(scope.catalogs)} catalogs x {len(scope.tasks)} tasks"
        + (f" x {scope.epochs} epochs" if scope.epochs > 1 else "")
        + f", shard {manifest.shard.label()}: {manifest.episodes} episodes, agent {manifest.agent.name}, "
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
        surface_file=None if chosen.file is None else str(chosen.file),
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
    if manifest.freeze.draft and pilot is None:
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
    if pilot is not None:
        console.print(pilot_line(pilot.name), markup=False, highlight=False)
    return RunOutcome(run_dir, 0, scored.report)


def _record_peek(paths: ProjectPaths, manifest: Any, console: Console) -> None:
    """A draft on the evaluation surface: record the run in spec/peeks.yaml before any episode runs."""
    from schemarouter.compiler.peeks import PEEKS_FILE, record_peek
    from schemarouter.runtime.run.manifest import now_utc

    scope = manifest.scope
    record_peek(
        paths,
        run_id=manifest.run_id,
        agent=manifest.agent.name,
        conditions=list(scope.conditions),
        catalogs=list(scope.catalogs),
        tasks=len(scope.tasks),
        episodes=manifest.episodes,
        now=now_utc(),
    )
    console.print(
        f"draft on the evaluation surface: recorded in {paths.display('spec/' + PEEKS_FILE)} as "
        f"evaluation outcomes seen before freeze (run {manifest.run_id}); it is frozen with the experiment",
        markup=False,
        highlight=False,
    )


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
    surface_file = None
    if first.surface is not None:
        from schemarouter.application.surfaces import pilot_surface_file

        surface_file = str(pilot_surface_file(paths, first.surface))
    setup = EngineSetup(
        project_root=paths.root,
        compiled=compiled,
        catalog_sizes=first.scope.catalogs,
        agent=first.agent.name,
        experiment=paths.experiment,
        surface_file=surface_file,
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
    if scored.report.get("pilot"):
        console.print(pilot_line(scored.report["pilot"]["surface"]), markup=False, highlight=False)
    return scored.report


def _merge_id(run_dirs: list[Path]) -> str:
    run_ids = sorted(read_manifest(d).run_id for d in run_dirs)
    return hashlib.sha256("\n".join(run_ids).encode()).hexdigest()[:12]
