"""`sr golden` and `sr bench run`: the full reference run in a scratch copy of the project.

The engine and the surface are looked up on ``run_flow`` at call time (tests substitute fakes there).

Both copy spec/ (without the lock) and catalogs/ into a scratch directory under build/, freeze the copy,
run the reference experiment there, and delete the copy. So neither ever writes to the project's runs/
or records a scoring in the project's spec/freeze.lock: golden files are regression pins of the current
files and code, not the experiment's scoring of record (that is `sr run` / `sr score`, which record it).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console

from schemarouter.cli import run_flow
from schemarouter.cli.run_flow import TaskSource, run_experiment
from schemarouter.compiler import compile_project, freeze_project
from schemarouter.errors import SchemaRouterError
from schemarouter.project import ProjectPaths
from schemarouter.runtime.report.console import make_console
from schemarouter.runtime.report.golden import check_golden, write_golden
from schemarouter.runtime.run import EngineSetup, EpisodeEngine, jsonio, load_result_set
from schemarouter.runtime.run.request import build_request
from schemarouter.runtime.run.rundir import open_run_dir
from schemarouter.runtime.run.session import run_session
from schemarouter.runtime.scoring import ScoringSpec
from schemarouter.runtime.scoring.report_json import REPORT_FILE
from schemarouter.runtime.scoring.score import compute_scores

SCRATCH_SKIPPED = ("lineage.yaml", "deviations.yaml", "lineage.schema.json", "deviations.schema.json")


@contextmanager
def scratch_project(paths: ProjectPaths, *, purpose: str) -> Iterator[ProjectPaths]:
    """A frozen copy of the experiment's spec/ and catalogs/ under build/, in the flat layout, deleted on
    exit. When the experiment's lock verifies, the copy keeps it (so the copy's root is the recorded
    root, annexes included); otherwise the copy is frozen afresh."""
    from schemarouter.compiler.verify import verify_project

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


def golden(
    *,
    paths: ProjectPaths,
    update: bool,
    run_dir: Path | None = None,
    workers: int = 2,
    console: Console | None = None,
    engine: EpisodeEngine | None = None,
    task_source: TaskSource | None = None,
) -> bool:
    """Write (update) or check golden/ against the full reference run; True when it matches.

    Without ``run_dir`` the reference run is made fresh in a scratch copy; with it, that scored run's
    report.json is used.
    """
    console = console or make_console()
    if run_dir is None:
        with scratch_project(paths, purpose="golden-run") as scratch:
            outcome = run_experiment(
                paths=scratch,
                workers=workers,
                console=console,
                engine=engine,
                task_source=task_source,
                plots=False,
                announce_report=False,  # the scratch copy is deleted
            )
        if outcome.report is None:
            raise SchemaRouterError("the reference run did not reach a scored, terminal state")
        report = outcome.report
    else:
        path = run_dir / REPORT_FILE
        if not path.is_file():
            raise SchemaRouterError(f"{run_dir}: no {REPORT_FILE}; score the run first (sr score {run_dir})")
        report = jsonio.read_json(path)
    if update:
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


def bench(
    *,
    paths: ProjectPaths,
    workers: int = 2,
    console: Console | None = None,
    engine: EpisodeEngine | None = None,
    task_source: TaskSource | None = None,
) -> dict[str, float]:
    """Time the full reference run and its bootstrap in a scratch copy; print and return timings only."""
    console = console or make_console()
    with scratch_project(paths, purpose="bench-run") as scratch:
        started = time.perf_counter()
        compiled = compile_project(scratch, write_manifest=False)
        request = build_request(
            compiled,
            (task_source or run_flow.surface_tasks)(scratch),
            agent=None,
            conditions=None,
            catalogs=None,
            task_filter=None,
            shard=None,
        )
        compile_s = time.perf_counter() - started
        run_dir, manifest = open_run_dir(
            request, project_root=scratch.root, runs_dir=scratch.runs_dir, run_dir=None, resume=False
        )
        setup = EngineSetup(scratch.root, compiled, manifest.scope.catalogs, manifest.agent.name)
        started = time.perf_counter()
        result = run_session(
            run_dir,
            manifest,
            engine=engine or run_flow.EngineAdapter(),
            setup=setup,
            project_root=scratch.root,
            workers=workers,
        )
        episodes_s = time.perf_counter() - started
        if result.summary.events:
            raise SchemaRouterError(f"{result.summary.events} infrastructure events; no timing is reported")
        spec = ScoringSpec.from_compiled(compiled)
        started = time.perf_counter()
        scored = compute_scores(load_result_set([run_dir]), spec=spec, out_dir=scratch.root / "scores")
        scoring_s = time.perf_counter() - started
    n = result.summary.committed
    timings = {
        "compile_and_scope_s": compile_s,
        "episodes_s": episodes_s,
        "episodes_per_s": n / episodes_s if episodes_s else float("inf"),
        "bootstrap_and_gate_s": scored.bootstrap_seconds,
        "scoring_total_s": scoring_s,
        "total_s": compile_s + episodes_s + scoring_s,
    }
    console.print(
        f"reference run, {n} episodes, {workers} worker{'s' if workers > 1 else ''}:\n"
        f"  compile + scope      {compile_s:7.2f} s\n"
        f"  episodes             {episodes_s:7.2f} s  ({timings['episodes_per_s']:.0f} episodes/s, "
        "engine load included)\n"
        f"  bootstrap + gate     {scored.bootstrap_seconds:7.2f} s  "
        f"({spec.bootstrap.iterations:,} resamples)\n"
        f"  scoring incl. files  {scoring_s:7.2f} s\n"
        f"  total                {timings['total_s']:7.2f} s"
    )
    return timings
