"""One session of a run directory: lock it, skip what is committed, execute the rest, record the session."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runtime.run.engine_port import EngineSetup, EpisodeEngine
from runtime.run.executors.registry import DEFAULT_EXECUTOR, ExecutorOptions, make_executor
from runtime.run.manifest import RunManifest, Session
from runtime.run.outcomes import ExecutionRequest, ExecutionSummary, ProgressCallback
from runtime.run.rundir import SessionLock, finish_session, start_session
from runtime.run.scope import EpisodeKey
from runtime.run.store import EpisodeStore


@dataclass(frozen=True)
class SessionResult:
    """What a session found and did."""

    run_dir: Path
    session: int
    already_committed: int
    to_run: int
    summary: ExecutionSummary


def run_session(
    run_dir: Path,
    manifest: RunManifest,
    *,
    engine: EpisodeEngine,
    setup: EngineSetup,
    project_root: Path,
    workers: int,
    max_events: int = 20,
    on_start: ProgressCallback | None = None,
    on_progress: ProgressCallback | None = None,
    executor: str = DEFAULT_EXECUTOR,
    executor_options: ExecutorOptions | None = None,
    threads: int = 1,
    requests: int | None = None,
) -> SessionResult:
    """Execute every episode of the directory's shard that is not committed yet.

    ``on_start(already_committed, to_run)`` is called once before any episode runs. ``executor`` is a
    code of ``executors/registry.py`` (``local``, ``ray``); any executor can resume any other's run.
    ``threads``: model requests each worker keeps in flight (``in_flight.py``; the local executor's);
    ``requests``: the run's total of them (``--concurrency N``), which the workers share out exactly.
    """
    runner = make_executor(executor, executor_options)  # an unknown code or a missing extra: before the lock
    with SessionLock(run_dir):
        session = start_session(run_dir, project_root=project_root, workers=workers, executor=executor)
        summary: ExecutionSummary | None = None
        try:
            with EpisodeStore(run_dir) as store:
                already, keys = _pending(store, manifest)
                if on_start is not None:
                    on_start(already, len(keys))
                request = ExecutionRequest(
                    keys=keys,
                    store=store,
                    engine=engine,
                    setup=setup,
                    session=session.number,
                    workers=workers,
                    max_events=max_events,
                    on_progress=on_progress,
                    threads=threads,
                    requests=requests,
                )
                summary = runner.execute(request)
        finally:
            _finish(run_dir, session, summary)
    assert summary is not None  # execute() returned; an exception would have propagated
    return SessionResult(
        run_dir, session.number, already_committed=already, to_run=len(keys), summary=summary
    )


def _pending(store: EpisodeStore, manifest: RunManifest) -> tuple[int, list[EpisodeKey]]:
    """How many episodes are committed, and the shard's others in canonical order."""
    committed = store.committed_keys()
    return len(committed), [k for k in manifest.scope.shard_keys(manifest.shard) if k not in committed]


def _finish(run_dir: Path, session: Session, summary: ExecutionSummary | None) -> None:
    """Record the session's end, its counts taken from the store (true even when it was interrupted)."""
    with EpisodeStore(run_dir) as store:
        n_committed, n_events = store.session_counts(session.number)
    finish_session(
        run_dir,
        session,
        committed=n_committed,
        events=n_events,
        model_calls=summary.model_calls if summary is not None else None,
    )
