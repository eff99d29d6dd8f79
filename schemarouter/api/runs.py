"""``run`` and ``score``: episodes and scores as typed calls returning a :class:`Run`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console

from runtime.core.errors import SchemaRouterError
from schemarouter.api.project import ProjectArg, project_paths, quiet_console
from schemarouter.api.run_view import Run

# progress(done, total): episodes committed this session out of the session's total.
ProgressFn = Callable[[int, int], None]


def run(
    project: ProjectArg = ".",
    *,
    experiment: str | None = None,
    conditions: Sequence[str] | None = None,
    catalogs: Sequence[int] | None = None,
    tasks: Sequence[str] | None = None,
    agent: str | None = None,
    surface: str | None = None,
    surface_file: Path | None = None,
    run_dir: Path | None = None,
    resume: bool = False,
    workers: int = 2,
    concurrency: int | None = None,
    draft: bool = False,
    plots: bool = False,
    epochs: int | None = None,
    progress: ProgressFn | None = None,
    console: Console | None = None,
) -> Run:
    """Run (and score, when terminal) the experiment, or the part the scope names: ``conditions``
    (IDs or codes), ``catalogs`` (sizes), ``tasks`` (task IDs, strata, languages). ``surface="dev"``
    is a pilot. ``concurrency`` keeps that many episodes in flight (threads over each worker's
    engine). Prints nothing unless ``console`` is given; ``progress(done, total)`` follows the
    episodes. Raises :class:`SchemaRouterError` when the run stops short of terminal."""
    from schemarouter.application.run import RunDeps, RunRequest, run_experiment

    paths = project_paths(project, experiment)
    request = RunRequest(
        agent=agent,
        conditions=None if conditions is None else tuple(conditions),
        catalogs=None if catalogs is None else tuple(catalogs),
        tasks=None if tasks is None else tuple(tasks),
        surface=surface,
        surface_file=surface_file,
        run_dir=run_dir,
        resume=resume,
        workers=workers,
        concurrency=concurrency,
        allow_draft=draft,
        plots=plots,
        epochs=epochs,
        announce_report=False,
    )
    outcome = run_experiment(paths, request, RunDeps(console=quiet_console(console), on_progress=progress))
    if outcome.exit_code != 0:
        raise SchemaRouterError(f"{outcome.run_dir}: the run stopped before it was terminal (sr status)")
    return Run(outcome.run_dir, project=paths)


def score(
    run_dirs: Path | str | Sequence[Path | str],
    *,
    project: ProjectArg = ".",
    experiment: str | None = None,
    out: Path | None = None,
    plots: bool = False,
    plot_svg: bool = False,
    console: Console | None = None,
) -> Run:
    """Score a terminal run (or merge its shards) and return the scored run; ``plots``: the PNG plots
    (``plot_svg``: an SVG beside each)."""
    from schemarouter.application.run import RunDeps
    from schemarouter.application.score import ScoreRequest, score_runs

    dirs = (run_dirs,) if isinstance(run_dirs, str | Path) else tuple(run_dirs)
    paths = project_paths(project, experiment)
    request = ScoreRequest(tuple(Path(d) for d in dirs), out, plots, plot_svg)
    score_runs(paths, request, RunDeps(console=quiet_console(console)))
    target = out if out is not None else (Path(dirs[0]) if len(dirs) == 1 else None)
    if target is None:
        from schemarouter.application.score import default_out

        target = default_out(paths, [Path(d) for d in dirs])
    return Run(Path(target), project=paths)
