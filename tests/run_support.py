"""Helpers for the run and scoring tests: temporary frozen projects, run requests, quick runs.

The real spec/ and spec/freeze.lock are never touched: every project here is a copy under tmp_path.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

from run_fake_engine import FakeEngine, fake_audit, full_scope, scoring_spec

from runtime.run import AgentConfig, FreezeState, RunRequest, RunScope, Shard, run_session
from runtime.run.engine_port import EngineSetup
from runtime.run.resultset import load_result_set
from runtime.run.rundir import open_run_dir
from runtime.scoring import ScoreResult, score_result_set
from schemarouter.project import ProjectPaths

REPO = Path(__file__).resolve().parents[1]
EXPERIMENT = "0.14"  # the repository's experiment of record
FREEZE_HASH = "f" * 64


def copy_project(tmp_path: Path) -> ProjectPaths:
    """A flat copy of the repository experiment's tracked spec/ (without its lock) and catalogs/ files.

    Tracked files only, so a file another change has only begun to add cannot break these tests.
    """
    root = tmp_path / "project"
    for rel in _tracked(f"spec/{EXPERIMENT}", f"catalogs/{EXPERIMENT}"):
        if rel == f"spec/{EXPERIMENT}/freeze.lock":
            continue
        target = root / rel.replace(f"/{EXPERIMENT}/", "/", 1)  # a flat copy of the experiment
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, target)
    return ProjectPaths.at(root)


def _tracked(*dirs: str) -> list[str]:
    try:
        out = subprocess.run(
            ["git", "-C", str(REPO), "ls-files", "-z", "--", *dirs],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        return [rel for rel in out.split("\0") if rel and (REPO / rel).is_file()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: every file
        return [
            p.relative_to(REPO).as_posix()
            for d in dirs
            if (REPO / d).is_dir()
            for p in sorted((REPO / d).rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(REPO).parts)
        ]


def frozen_project(tmp_path: Path) -> ProjectPaths:
    from compiler import freeze_project

    paths = copy_project(tmp_path)
    freeze_project(paths, reason="run/scoring tests")
    return paths


def recorded_project(tmp_path: Path) -> ProjectPaths:
    """A flat copy of the repository's experiment with its recorded lock (root, annexes, scoring record)."""
    paths = copy_project(tmp_path)
    shutil.copyfile(REPO / "spec" / EXPERIMENT / "freeze.lock", paths.lock_file)
    return paths


def request(
    scope: RunScope | None = None, *, shard: Shard | None = None, freeze_hash: str | None = FREEZE_HASH
) -> RunRequest:
    return RunRequest(
        experiment_id="0.14",
        freeze=FreezeState(root_hash=freeze_hash, draft=freeze_hash is None),
        agent=AgentConfig(name="reference", config={"kind": "test"}, tokenizer={"encoding": "cl100k_base"}),
        scope=scope or full_scope(),
        shard=shard or Shard(index=1, count=1),
    )


def execute(
    root: Path,
    req: RunRequest,
    *,
    engine: FakeEngine | None = None,
    workers: int = 1,
    resume: bool = False,
    run_dir: Path | None = None,
    threads: int = 1,
    max_events: int = 20,
) -> Path:
    """Open (or resume) a run directory under ``root/runs`` and run one session in it."""
    run_dir, manifest = open_run_dir(
        req, project_root=root, runs_dir=root / "runs", run_dir=run_dir, resume=resume
    )
    run_session(
        run_dir,
        manifest,
        engine=engine or FakeEngine(tasks=req.scope.tasks),
        setup=EngineSetup(root, None, req.scope.catalogs, "reference"),
        project_root=root,
        workers=workers,
        threads=threads,
        max_events=max_events,
    )
    return run_dir


def score(
    run_dirs: list[Path], out_dir: Path, *, iterations: int | None = None, **kwargs: Any
) -> ScoreResult:
    spec = scoring_spec()
    if iterations is not None:
        spec = spec.model_copy(
            update={"bootstrap": spec.bootstrap.model_copy(update={"iterations": iterations})}
        )
    kwargs.setdefault("audit", fake_audit)
    return score_result_set(
        load_result_set(run_dirs), spec=spec, current_freeze_hash=FREEZE_HASH, out_dir=out_dir, **kwargs
    )


def small_scope() -> RunScope:
    """Two strata x two languages x 3 tasks, conditions C2 and C3 plus FULL, catalogs 100 and 250."""
    tasks = [t for t in full_scope().tasks if t.stratum in ("two_step_state", "recoverable_failure")]
    tasks = [t for t in tasks if t.language in ("en", "ko") and int(t.task_id[-2:]) < 3]
    return full_scope(
        tasks,
        conditions=("SR-PROGRESSIVE-STATIC", "SR-5-STATE-AWARE", "FULL"),
        catalogs=(100, 250),
    )
