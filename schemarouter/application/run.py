"""`sr run`: compile (or reuse a current build/compiled.json), execute the missing episodes, score.

``sr run`` on a draft (no spec/freeze.lock) is refused unless ``allow_draft``: a draft run can never be
scored, so executing 2,700 episodes by accident would be wasted; with it, the run stops before scoring.

``surface="dev"`` / ``surface_file=FILE`` is a pilot: any experiment, draft or frozen, on a surface other
than the evaluation surface. It is marked PILOT on the console, in report.md, report.json and the run
manifest, is scored as a pilot when terminal, and is never recorded as scoring in any lock.

Tests substitute the engine and the surface through :class:`RunDeps`, never by patching this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console

from compiler import compile_project
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject, JSONValue
from runtime.core.progress import Progress
from runtime.report.console import make_console, pilot_line, print_verdict
from runtime.report.progress import EpisodeProgress
from runtime.report.publish import score_and_publish
from runtime.report.report_data import as_report_data
from runtime.retrieval.key_free import KeyFreeMatches
from runtime.run import EngineAdapter, EngineSetup, EpisodeEngine, load_result_set, read_manifest
from runtime.run.executors.choice import executor_choice
from runtime.run.executors.registry import DEFAULT_EXECUTOR
from runtime.run.manifest import RunManifest
from runtime.run.request import build_request, resume_request
from runtime.run.rundir import RunRequest as EpisodePlan
from runtime.run.rundir import open_run_dir
from runtime.run.scope import Selection
from runtime.run.session import SessionResult, run_session
from runtime.scoring.score import OutcomeAudit
from runtime.spec_model import CompiledSpec
from runtime.spec_model.identity import identity_line, lineage_of
from runtime.surface.model import Task
from schemarouter.application.code_pin import plugin_components, require_code_unchanged
from schemarouter.application.compiled import compiled_for_run
from schemarouter.application.surfaces import ChosenSurface, choose_surface, pilot_surface_file
from schemarouter.project import ProjectPaths

# More worker processes than this is a typo, not a machine (each holds its own engine).
MAX_WORKERS = 512
# Episodes in flight at once (`--concurrency`): a model server with more slots than this is rare, and
# each in-flight episode is a thread and an open connection.
MAX_CONCURRENCY = 1024

TaskSource = Callable[[ProjectPaths], Iterable[Task]]

DRAFT_REFUSAL = (
    "the specs are a draft (no spec/freeze.lock): a draft run is never scored. Freeze them first "
    '(sr freeze --reason "..."), or pass --draft to execute an unscoreable run anyway.'
)


@dataclass(frozen=True)
class RunRequest:
    """What the user asked `sr run` for. ``None`` scope options mean the preregistered scope; a scope
    option is a list of IDs, codes or sizes (``conditions=("SR-5-STATIC",)``, ``catalogs=(100,)``), or
    the CLI's comma-separated text, parsed alike (``runtime/run/scope.py``)."""

    agent: str | None = None
    conditions: Selection | None = None
    catalogs: Selection | None = None
    tasks: Selection | None = None
    shard: str | None = None
    surface: str | None = None
    surface_file: Path | None = None
    # The pilot's surface name for --surface-file: "file", or "confirmation" under `sr confirm`.
    surface_file_name: str = "file"
    run_dir: Path | None = None
    resume: bool = False
    workers: int = 2
    # Model requests in flight (`--concurrency N`): min(workers, N) processes sharing N request slots
    # (ceil(N / processes) at most each, N in all); None: one episode per worker process, as before.
    concurrency: int | None = None
    allow_draft: bool = False
    max_events: int = 20
    plots: bool = False  # the PNG plots (`--plots`); report.html draws its figures either way
    plot_svg: bool = False  # each plot also as SVG (`--plot-svg`, which implies `--plots`)
    announce_report: bool = True
    # The agent's identity options (model, decoding) and transport options (base URL, cache path).
    agent_options: Mapping[str, JSONValue] = field(default_factory=dict)
    # Trials per episode (`--epochs N`); None: one, as before epochs existed.
    epochs: int | None = None
    # Where the episodes run: a code of runtime/run/executors/, and its options.
    executor: str = DEFAULT_EXECUTOR
    ray_address: str | None = None

    def processes_and_threads(self) -> tuple[int, int]:
        """Worker processes (Ray: actors) and the model requests each keeps in flight at most; the same
        on every executor."""
        n = self.concurrency
        if n is None:
            return self.workers, 1
        processes = min(self.workers, n)
        return processes, -(-n // processes)

    def scope_options(self) -> tuple[Selection | Path | int | None, ...]:
        return (
            self.agent,
            self.conditions,
            self.catalogs,
            self.tasks,
            self.shard,
            self.surface,
            self.surface_file,
            self.epochs,
        )


@dataclass(frozen=True)
class RunDeps:
    """What a caller may substitute: console, engine, task surface, a spec compiled moments ago."""

    console: Console | None = None
    engine: EpisodeEngine | None = None
    task_source: TaskSource | None = None
    compiled: CompiledSpec | None = None
    # A library caller's progress: (episodes done, total) of the session, beside the console's bar.
    on_progress: Callable[[int, int], None] | None = None
    # The compile's steps when a run has to compile first (a draft can take minutes): a context manager
    # that yields the progress callback and ends before any worker starts (the CLI's CommandProgress).
    compile_progress: Callable[[], AbstractContextManager[Progress]] | None = None

    def engine_or_default(self) -> EpisodeEngine:
        return self.engine or EngineAdapter()

    def tasks_or_default(self, chosen: ChosenSurface | None = None) -> TaskSource:
        if self.task_source is not None:
            return self.task_source
        return surface_tasks if chosen is None or chosen.pilot is None else chosen.tasks


NO_DEPS = RunDeps()


@dataclass(frozen=True)
class RunOutcome:
    """What `sr run` ended with."""

    run_dir: Path
    exit_code: int
    report: JSONObject | None


def surface_tasks(paths: ProjectPaths) -> list[Task]:
    from runtime.surface import load_surface

    return list(load_surface(paths.catalogs_dir))


def _compiled(paths: ProjectPaths, deps: RunDeps) -> CompiledSpec:
    """The run's compiled spec; a compile reports its steps through ``deps.compile_progress``."""
    if deps.compile_progress is None:
        return compiled_for_run(paths, compile=compile_project).spec
    with deps.compile_progress() as progress:
        return compiled_for_run(paths, compile=compile_project, progress=progress).spec


def run_experiment(paths: ProjectPaths, request: RunRequest, deps: RunDeps = NO_DEPS) -> RunOutcome:
    """Compile (unless ``deps.compiled``), execute the run's missing episodes, score it when terminal."""
    console = deps.console or make_console()
    _check(request)
    if request.run_dir is not None:
        from schemarouter.output_guard import output_guard

        output_guard(paths.root).directory(request.run_dir, option="--run-dir")
    # build/compiled.json when it is current; else compile_project (looked up here, so tests may swap it).
    compiled = deps.compiled or _compiled(paths, deps)
    previous = read_manifest(request.run_dir) if request.resume and request.run_dir is not None else None
    chosen = _surface(paths, request, previous)
    if compiled.draft and not request.allow_draft and chosen.pilot is None:
        raise SchemaRouterError(DRAFT_REFUSAL)
    if chosen.pilot is not None:
        console.print(pilot_line(chosen.pilot.name), markup=False, highlight=False)
    else:  # a run of record: refused before anything is written when the pinned code's behaviour moved
        require_code_unchanged(paths, compiled)
    if previous is not None:
        plan = resume_request(compiled, previous)
    else:
        plan = _plan(paths, request, deps, compiled, chosen)
    # An installed package's components are recorded by distribution, version and digest (a resume
    # under other plugin code is refused, as under another source commit).
    plan = replace(plan, plugins=plugin_components(compiled))
    run_dir, manifest = open_run_dir(
        plan, project_root=paths.root, runs_dir=paths.runs_dir, run_dir=request.run_dir, resume=request.resume
    )
    if compiled.draft and chosen.pilot is None:
        _record_peek(paths, manifest, console)
    _announce(console, run_dir, manifest, request)
    engine = deps.engine_or_default()
    setup = _setup(paths, compiled, manifest, request, chosen)
    result = _execute(console, run_dir, manifest, engine, setup, request, deps.on_progress)
    exit_code = _unfinished(console, run_dir, manifest, result)
    if exit_code is not None:
        _record_session(paths, console, compiled, manifest, None, exit_code)
        return RunOutcome(run_dir, exit_code, None)
    audit = engine.metrics_audit(setup)
    report = _score(paths, console, run_dir, compiled, audit, request, result.summary.key_free)
    if request.announce_report:
        console.print(f"report: {run_dir / 'report.md'}")
    _record_session(paths, console, compiled, manifest, report, 0)
    if chosen.pilot is not None:
        console.print(pilot_line(chosen.pilot.name), markup=False, highlight=False)
    return RunOutcome(run_dir, 0, report)


def _record_session(
    paths: ProjectPaths,
    console: Console,
    compiled: CompiledSpec,
    manifest: RunManifest,
    report: JSONObject | None,
    exit_code: int,
) -> None:
    """A draft's run, on any surface, ends its session with one entry in spec/pilots.yaml."""
    from schemarouter.application.pilot_record import record_session, session_verdict

    verdict = session_verdict(manifest, report, exit_code)
    record_session(paths, console, compiled=compiled, manifest=manifest, verdict=verdict)


def _resuming_dir(request: RunRequest) -> bool:
    return request.resume and request.run_dir is not None


def _check(request: RunRequest) -> None:
    if not 1 <= request.workers <= MAX_WORKERS:
        raise SchemaRouterError(f"--workers {request.workers}: between 1 and {MAX_WORKERS}")
    if request.concurrency is not None and not 1 <= request.concurrency <= MAX_CONCURRENCY:
        raise SchemaRouterError(f"--concurrency {request.concurrency}: between 1 and {MAX_CONCURRENCY}")
    executor_choice(request.executor, request.ray_address)
    if _resuming_dir(request) and any(option is not None for option in request.scope_options()):
        raise SchemaRouterError(
            "--resume --run-dir continues that directory's own agent, scope, shard and surface; "
            "drop --agent/--conditions/--catalogs/--tasks/--shard/--surface/--surface-file/--epochs"
        )


def _surface(paths: ProjectPaths, request: RunRequest, previous: RunManifest | None) -> ChosenSurface:
    if previous is None:
        return choose_surface(
            paths,
            surface=request.surface,
            surface_file=request.surface_file,
            file_name=request.surface_file_name,
        )
    if previous.surface is None:
        return ChosenSurface()
    return ChosenSurface(previous.surface, pilot_surface_file(paths, previous.surface))


def _plan(
    paths: ProjectPaths, request: RunRequest, deps: RunDeps, compiled: CompiledSpec, chosen: ChosenSurface
) -> EpisodePlan:
    source = deps.tasks_or_default(chosen)
    return build_request(
        compiled,
        source(paths),
        agent=request.agent,
        conditions=request.conditions,
        catalogs=request.catalogs,
        task_filter=request.tasks,
        shard=request.shard,
        agent_options=dict(request.agent_options),
        surface=chosen.pilot,
        epochs=1 if request.epochs is None else request.epochs,
    )


def _announce(console: Console, run_dir: Path, manifest: RunManifest, request: RunRequest) -> None:
    scope = manifest.scope
    workers, threads = request.processes_and_threads()
    executor = request.executor
    console.print(
        f"run [bold]{manifest.run_id}[/] ({run_dir})\n"
        f"  {len(scope.conditions)} conditions x {len(scope.catalogs)} catalogs x {len(scope.tasks)} tasks"
        + (f" x {scope.epochs} epochs" if scope.epochs > 1 else "")
        + f", shard {manifest.shard.label()}: {manifest.episodes} episodes, agent {manifest.agent.name}, "
        f"{workers} worker{'s' if workers > 1 else ''}"
        + (f" x {threads} in flight" if threads > 1 else "")
        + (
            f" at most ({request.concurrency} in all)"
            if threads > 1 and request.concurrency != workers * threads
            else ""
        )
        + (f", executor {executor}" if executor != DEFAULT_EXECUTOR else "")
    )


def _setup(
    paths: ProjectPaths,
    compiled: CompiledSpec,
    manifest: RunManifest,
    request: RunRequest,
    chosen: ChosenSurface,
) -> EngineSetup:
    # The run's identity options come from its manifest (so a resume keeps them); transport options
    # (base URL, model-call cache) from this invocation.
    options = {**request.agent_options, **manifest.agent.options}
    return EngineSetup(
        project_root=paths.root,
        compiled=compiled,
        catalog_sizes=manifest.scope.catalogs,
        agent=manifest.agent.name,
        agent_options=tuple(sorted((k, v) for k, v in options.items() if v is not None)),
        catalogs_dir=paths.catalogs_dir,
        surface_file=None if chosen.file is None else str(chosen.file),
        cache_dir=paths.build_dir / "retrieval",
    )


def _execute(
    console: Console,
    run_dir: Path,
    manifest: RunManifest,
    engine: EpisodeEngine,
    setup: EngineSetup,
    request: RunRequest,
    on_progress: Callable[[int, int], None] | None = None,
) -> SessionResult:
    workers, threads = request.processes_and_threads()
    try:
        with EpisodeProgress(console) as progress:

            def advance(done: int, total: int) -> None:
                progress.advance(done, total)
                if on_progress is not None:
                    on_progress(done, total)

            result = run_session(
                run_dir,
                manifest,
                engine=engine,
                setup=setup,
                project_root=setup.project_root,
                workers=workers,
                threads=threads,
                requests=request.concurrency if threads > 1 else None,
                max_events=request.max_events,
                on_start=progress.start,
                on_progress=advance,
                executor=request.executor,
                executor_options=executor_choice(request.executor, request.ray_address),
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
    return result


def _unfinished(console: Console, run_dir: Path, manifest: RunManifest, result: SessionResult) -> int | None:
    """The exit code when the run stops short of scoring (not terminal, a shard, a draft), else None."""
    state = load_result_set([run_dir]).dirs[0]
    if not state.shard_complete:
        _print_not_terminal(console, run_dir)
        return 1
    if manifest.shard.count > 1:
        console.print(
            f"shard {manifest.shard.label()} complete. Score the run once every shard is: "
            "`sr score DIR_1 ... DIR_N`"
        )
        return 0
    if manifest.freeze.draft and manifest.surface is None:
        console.print("[yellow]draft run complete; drafts are never scored[/]")
        return 0
    return None


def _print_not_terminal(console: Console, run_dir: Path) -> None:
    result_set = load_result_set([run_dir])
    state = result_set.dirs[0]
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


def _score(
    paths: ProjectPaths,
    console: Console,
    run_dir: Path,
    compiled: CompiledSpec,
    audit: OutcomeAudit,
    request: RunRequest,
    key_free: KeyFreeMatches | None = None,
) -> JSONObject:
    """``key_free``: what this session's workers recorded for the diagnostics (episodes of an earlier
    session, on resume, are answered by the diagnostics themselves)."""
    scored = score_and_publish(
        [run_dir],
        compiled=compiled,
        paths=paths,
        out_dir=run_dir,
        audit=audit,
        plots=request.plots,
        svg=request.plot_svg,
        key_free=key_free,
        on_scored=lambda s: print_verdict(
            console,
            as_report_data(s.report),
            identity=identity_line(compiled.experiment.id, lineage_of(compiled)),
        ),
    )
    return scored.report


def _record_peek(paths: ProjectPaths, manifest: RunManifest, console: Console) -> None:
    """A draft on the evaluation surface: record the run in spec/peeks.yaml before any episode runs."""
    from compiler.peeks import PEEKS_FILE, record_peek
    from runtime.run.manifest import now_utc

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
