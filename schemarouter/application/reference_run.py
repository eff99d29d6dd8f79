"""`sr golden` and `sr bench run`: the full reference run in a scratch copy of the project.

Both copy spec/ (without the lock) and catalogs/ into a scratch directory under build/, freeze the copy,
run the reference experiment there, and delete the copy. So neither ever writes to the project's runs/
or records a scoring in the project's spec/freeze.lock: golden files are regression pins of the current
files and code, not the experiment's scoring of record (that is `sr run` / `sr score`, which record it).
"""

from __future__ import annotations

import resource
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from compiler import compile_project, freeze_project
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject
from runtime.report.console import make_console
from runtime.report.golden import check_golden, write_golden
from runtime.run import EngineSetup, jsonio, load_result_set
from runtime.run.request import build_request
from runtime.run.rundir import open_run_dir
from runtime.run.session import run_session
from runtime.scoring import ScoringSpec
from runtime.scoring.report_json import REPORT_FILE
from runtime.scoring.score import compute_scores
from schemarouter.application.bench import REFERENCE_CPU_TARGET_S, REFERENCE_WALL_TARGET_S
from schemarouter.application.run import NO_DEPS, RunDeps, RunRequest, run_experiment
from schemarouter.project import ProjectPaths

SCRATCH_SKIPPED = ("lineage.yaml", "deviations.yaml", "lineage.schema.json", "deviations.schema.json")


@dataclass(frozen=True)
class GoldenRequest:
    """Write (``update``) or check golden/; ``run_dir``: use that scored run instead of a fresh one."""

    update: bool
    run_dir: Path | None = None
    workers: int = 2


@contextmanager
def scratch_project(paths: ProjectPaths, *, purpose: str) -> Iterator[ProjectPaths]:
    """A frozen copy of the experiment's spec/ and catalogs/ under build/, in the flat layout, deleted on
    exit. When the experiment's lock verifies, the copy keeps it (so the copy's root is the recorded
    root, annexes included); otherwise the copy is frozen afresh."""
    from compiler.verify import verify_project

    paths.build_dir.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=f"{purpose}-", dir=paths.build_dir))
    keep_lock = paths.lock_file.is_file() and verify_project(paths).clean
    try:
        for source, top in ((paths.spec_dir, "spec"), (paths.catalogs_dir, "catalogs")):
            if source.is_dir():
                # Frozen afresh, a draft successor's lineage and deviations would name a parent the flat
                # copy lacks: they are not copied then.
                skipped = (
                    ".*",
                    "__pycache__",
                    *(() if keep_lock else (paths.lock_file.name, *SCRATCH_SKIPPED)),
                )
                shutil.copytree(source, root / top, ignore=shutil.ignore_patterns(*skipped))
        if keep_lock:
            shutil.copyfile(paths.lock_file, root / "spec" / paths.lock_file.name)
        scratch = ProjectPaths.at(root)
        if not keep_lock:
            freeze_project(scratch, reason=f"scratch copy for {purpose}")
        yield scratch
    finally:
        shutil.rmtree(root, ignore_errors=True)


def reference_report(paths: ProjectPaths, workers: int, console: Console, deps: RunDeps) -> JSONObject:
    """report.json of a fresh full reference run, made in a scratch copy."""
    with scratch_project(paths, purpose="golden-run") as scratch:
        request = RunRequest(workers=workers, plots=False, announce_report=False)  # the copy is deleted
        outcome = run_experiment(scratch, request, RunDeps(console, deps.engine, deps.task_source))
    if outcome.report is None:
        raise SchemaRouterError("the reference run did not reach a scored, terminal state")
    return outcome.report


def golden(paths: ProjectPaths, request: GoldenRequest, deps: RunDeps = NO_DEPS) -> bool:
    """Write (update) or check golden/ against the full reference run; True when it matches."""
    console = deps.console or make_console()
    if request.run_dir is None:
        report = reference_report(paths, request.workers, console, deps)
    else:
        path = request.run_dir / REPORT_FILE
        if not path.is_file():
            raise SchemaRouterError(
                f"{request.run_dir}: no {REPORT_FILE}; score the run first (sr score {request.run_dir})"
            )
        report = jsonio.read_json(path)
    if request.update:
        for written in write_golden(paths.golden_dir, report):
            console.print(f"wrote {written}")
        return True
    problems = check_golden(paths.golden_dir, report)
    if problems:
        console.print("[red]golden files differ from the reference run:[/]")
        for line in problems:
            console.print(f"  {line}", markup=False, highlight=False)
        console.print(
            "If the change is intended, run `sr golden --update` and say why in the commit message."
        )
        return False
    console.print("[green]golden files match the reference run[/]")
    return True


def bench(paths: ProjectPaths, workers: int = 2, deps: RunDeps = NO_DEPS) -> dict[str, float]:
    """Time the full reference run and its bootstrap in a scratch copy; print and return timings only."""
    console = deps.console or make_console()
    cpu_started = process_cpu_s()
    with scratch_project(paths, purpose="bench-run") as scratch:
        started = time.perf_counter()
        compiled = compile_project(scratch, write_manifest=False)
        tasks = deps.tasks_or_default()(scratch)
        request = build_request(
            compiled, tasks, agent=None, conditions=None, catalogs=None, task_filter=None, shard=None
        )
        compile_s = time.perf_counter() - started
        run_dir, manifest = open_run_dir(
            request, project_root=scratch.root, runs_dir=scratch.runs_dir, run_dir=None, resume=False
        )
        setup = EngineSetup(
            scratch.root,
            compiled,
            manifest.scope.catalogs,
            manifest.agent.name,
            catalogs_dir=scratch.catalogs_dir,
            cache_dir=scratch.build_dir / "retrieval",  # the scratch copy's: a bench pays the caches
        )
        started = time.perf_counter()
        engine = deps.engine_or_default()
        result = run_session(
            run_dir, manifest, engine=engine, setup=setup, project_root=scratch.root, workers=workers
        )
        episodes_s = time.perf_counter() - started
        if result.summary.events:
            raise SchemaRouterError(f"{result.summary.events} infrastructure events; no timing is reported")
        spec = ScoringSpec.from_compiled(compiled)
        started = time.perf_counter()
        scored = compute_scores(load_result_set([run_dir]), spec=spec, out_dir=scratch.root / "scores")
        scoring_s = time.perf_counter() - started
    cpu_s = process_cpu_s() - cpu_started
    n = result.summary.committed
    timings = {
        "compile_and_scope_s": compile_s,
        "episodes_s": episodes_s,
        "episodes_per_s": n / episodes_s if episodes_s else float("inf"),
        "bootstrap_and_gate_s": scored.bootstrap_seconds,
        "scoring_total_s": scoring_s,
        "total_s": compile_s + episodes_s + scoring_s,
        "cpu_s": cpu_s,
    }
    _print_bench(console, n, workers, timings, spec.bootstrap.iterations)
    return timings


def _print_bench(console: Console, n: int, workers: int, t: dict[str, float], resamples: int) -> None:
    console.print(
        f"reference run, {n} episodes, {workers} worker{'s' if workers > 1 else ''}:\n"
        f"  compile + scope      {t['compile_and_scope_s']:7.2f} s\n"
        f"  episodes             {t['episodes_s']:7.2f} s  ({t['episodes_per_s']:.0f} episodes/s, "
        "engine load included)\n"
        f"  bootstrap + gate     {t['bootstrap_and_gate_s']:7.2f} s  ({resamples:,} resamples)\n"
        f"  scoring incl. files  {t['scoring_total_s']:7.2f} s\n"
        f"  total                {t['total_s']:7.2f} s wall, {t['cpu_s']:.2f} s CPU (this process and "
        "its workers)"
    )
    wall_met = "met" if t["total_s"] <= REFERENCE_WALL_TARGET_S else "NOT met"
    cpu_met = "met" if t["cpu_s"] <= REFERENCE_CPU_TARGET_S else "NOT met"
    console.print(
        f"reference run: {t['total_s']:.2f} s wall (target <= {REFERENCE_WALL_TARGET_S:g} s: {wall_met}), "
        f"{t['cpu_s']:.2f} s CPU (target <= {REFERENCE_CPU_TARGET_S:g} s: {cpu_met})"
    )


def process_cpu_s() -> float:
    """CPU seconds (user + system) of this process and of its children that have ended: a pool's
    workers count once the pool is joined, as run_session joins it before returning."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
