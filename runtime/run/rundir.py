"""Create, find and lock run directories (``runs/<run_id>/``).

A run ID is ``<UTC start, second precision>-<agent>-<first 8 hex of the config hash>``, e.g.
``20261002T101500Z-reference-3fa2c1d9``: time-based, so running the same configuration twice gives two
directories (the determinism check compares them), and carrying the config hash, so ``--resume`` without
``--run-dir`` finds the newest directory with the same frozen spec, source commit, agent, scope and shard.

One process at a time may execute in a directory: a session holds an exclusive ``flock`` on
``.session.lock``, which the kernel releases even on kill -9.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from runtime.core.errors import SchemaRouterError
from runtime.run.manifest import (
    MANIFEST_FILE,
    AgentConfig,
    FreezeState,
    PilotSurface,
    PluginComponent,
    RunManifest,
    Session,
    config_hash,
    now_utc,
    read_manifest,
    write_manifest,
)
from runtime.run.provenance import SourceState, package_versions, source_state
from runtime.run.scope import RunScope, Shard
from runtime.run.store import EpisodeStore

LOCK_FILE = ".session.lock"


@dataclass(frozen=True)
class RunRequest:
    """Everything that identifies a run, before a directory exists."""

    experiment_id: str
    freeze: FreezeState
    agent: AgentConfig
    scope: RunScope
    shard: Shard
    lineage: dict[str, Any] | None = None
    surface: PilotSurface | None = None  # a pilot's surface; None: the evaluation surface
    plugins: tuple[PluginComponent, ...] = ()  # components an installed package provides


def open_run_dir(
    request: RunRequest, *, project_root: Path, runs_dir: Path, run_dir: Path | None, resume: bool
) -> tuple[Path, RunManifest]:
    """The directory to execute in: a new one, or (``resume``) the matching existing one."""
    source = source_state(project_root)
    chash = config_hash(
        freeze=request.freeze,
        git_commit=source.git_commit,
        agent=request.agent,
        scope=request.scope,
        shard=request.shard,
        surface=request.surface,
        plugins=request.plugins,
    )
    if resume:
        target = run_dir if run_dir is not None else _find_resumable(runs_dir, chash)
        return _resumed(request, target, source, chash)
    if run_dir is None:
        suffix = f"{request.agent.name}-{chash.removeprefix('sha256:')[:8]}"
        try:
            run_dir = fresh_directory(runs_dir, suffix)
        except OSError as err:
            raise SchemaRouterError(
                f"{runs_dir}: cannot create a run directory there ({err.strerror or err})"
            ) from None
    else:
        _check_new_run_dir(run_dir, project_root)
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise SchemaRouterError(
                f"--run-dir {run_dir}: cannot create it ({err.strerror or err})"
            ) from None
    manifest = _new_manifest(request, run_dir, source, chash)
    with EpisodeStore(run_dir, create=True):
        pass
    write_manifest(run_dir, manifest)
    return run_dir, manifest


def _resumed(request: RunRequest, target: Path, source: SourceState, chash: str) -> tuple[Path, RunManifest]:
    """The directory to resume and its manifest, refused when its configuration is not the request's."""
    manifest = read_manifest(target)
    if manifest.config_hash != chash:
        raise SchemaRouterError(
            f"{target}: cannot resume: {_difference(manifest, request, source.git_commit)}. "
            "A run continues only under the same frozen spec, source commit, agent, scope and shard."
        )
    return target, manifest


def fresh_directory(parent: Path, suffix: str = "") -> Path:
    """Create and return ``parent/<UTC now>[-suffix]``, numbered ``-2``, ``-3``, ... while the name is
    taken. Made with mkdir, so two commands started in the same second never share one."""
    base = now_utc().strftime("%Y%m%dT%H%M%SZ") + (f"-{suffix}" if suffix else "")
    n = 1
    while True:
        path = parent / (base if n == 1 else f"{base}-{n}")
        try:
            path.mkdir(parents=True)
        except FileExistsError:
            n += 1
            continue
        return path


def _new_manifest(request: RunRequest, run_dir: Path, source: SourceState, chash: str) -> RunManifest:
    return RunManifest(
        run_id=run_dir.name,
        experiment_id=request.experiment_id,
        created_at=now_utc(),
        freeze=request.freeze,
        source=source,
        packages=package_versions(),
        agent=request.agent,
        scope=request.scope,
        shard=request.shard,
        episodes=len(request.scope.shard_keys(request.shard)),
        config_hash=chash,
        lineage=request.lineage,
        surface=request.surface,
        plugins=request.plugins,
    )


class SessionLock:
    """An exclusive, crash-released lock on a run directory for the length of one session."""

    def __init__(self, run_dir: Path) -> None:
        self._path = run_dir / LOCK_FILE
        self._handle: IO[str] | None = None

    def __enter__(self) -> SessionLock:
        try:
            handle = open(self._path, "a+", encoding="utf-8")
        except OSError as err:
            raise SchemaRouterError(
                f"{self._path}: cannot take the session lock ({err.strerror or err}); "
                "a read-only run directory can be inspected (sr status, sr score --out DIR), not run"
            ) from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise SchemaRouterError(
                f"{self._path.parent}: another process is executing episodes in this run directory"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._handle = handle
        return self

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None:
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def start_session(run_dir: Path, *, project_root: Path, workers: int, executor: str | None = None) -> Session:
    """Append a new session to the manifest and return it."""
    manifest = read_manifest(run_dir)
    session = Session(
        number=len(manifest.sessions) + 1,
        started_at=now_utc(),
        workers=workers,
        executor=executor,
        source=source_state(project_root),
    )
    write_manifest(run_dir, manifest.model_copy(update={"sessions": (*manifest.sessions, session)}))
    return session


def finish_session(
    run_dir: Path,
    session: Session,
    *,
    committed: int,
    events: int,
    model_calls: dict[str, int] | None = None,
) -> None:
    manifest = read_manifest(run_dir)
    finished = session.model_copy(
        update={
            "finished_at": now_utc(),
            "committed": committed,
            "infrastructure_events": events,
            "model_calls": model_calls,
        }
    )
    sessions = tuple(finished if s.number == session.number else s for s in manifest.sessions)
    write_manifest(run_dir, manifest.model_copy(update={"sessions": sessions}))


def _check_new_run_dir(run_dir: Path, project_root: Path) -> None:
    """A new run's directory must be a directory of its own: not a file, not an existing run, not the
    project directory or a folder above it (``--run-dir ""`` is the current directory)."""
    if (run_dir / MANIFEST_FILE).exists():
        raise SchemaRouterError(f"{run_dir} is already a run directory; continue it with --resume")
    if run_dir.exists() and not run_dir.is_dir():
        raise SchemaRouterError(f"--run-dir {run_dir}: exists and is not a directory")
    resolved, project = run_dir.resolve(), project_root.resolve()
    if resolved == project or resolved in project.parents:
        raise SchemaRouterError(
            f"--run-dir {str(run_dir) or '.'!r} is the project directory or above it; "
            "a run needs a directory of its own (default: runs/<run_id>/)"
        )


def _find_resumable(runs_dir: Path, chash: str) -> Path:
    candidates = []
    if runs_dir.is_dir():
        for child in runs_dir.iterdir():
            if (child / MANIFEST_FILE).is_file():
                try:
                    manifest = read_manifest(child)
                except (SchemaRouterError, ValueError):
                    continue
                if manifest.config_hash == chash:
                    candidates.append((manifest.created_at, child.name, child))
    if not candidates:
        raise SchemaRouterError(
            f"--resume: no run directory under {runs_dir} has this configuration (same frozen spec, "
            "source commit, agent, scope and shard); start one without --resume, or name it with --run-dir"
        )
    return max(candidates)[2]


def _difference(manifest: RunManifest, request: RunRequest, git_commit: str | None) -> str:
    diffs = []
    if manifest.freeze != request.freeze:
        diffs.append(f"freeze root hash {manifest.freeze.root_hash} != current {request.freeze.root_hash}")
    if manifest.source.git_commit != git_commit:
        diffs.append(f"source commit {manifest.source.git_commit} != current {git_commit}")
    if manifest.agent != request.agent:
        diffs.append(f"agent {manifest.agent.name} config differs from the current one")
    if manifest.scope != request.scope:
        diffs.append("the declared scope (conditions, catalogs, tasks) differs")
    if manifest.surface != request.surface:
        diffs.append("the surface (evaluation or pilot surface file) differs")
    if manifest.shard != request.shard:
        diffs.append(f"shard {manifest.shard.label()} != requested {request.shard.label()}")
    if manifest.plugins != request.plugins:
        now = {(p.distribution, p.version, p.implementation) for p in request.plugins}
        moved = sorted(
            {
                p.distribution
                for p in manifest.plugins
                if (p.distribution, p.version, p.implementation) not in now
            }
        )
        diffs.append(f"the installed plugin code differs ({', '.join(moved) or 'plugins added'})")
    return "; ".join(diffs) or "the configuration hash differs"
