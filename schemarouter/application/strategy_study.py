"""The retrieval-strategy study of ``sr bench retrieval --surface dev``: the user action only.

It refuses the evaluation surface, resolves the experiment's compiled spec, catalogs and pilot tasks,
hands them to ``runtime.analysis.study.compute_study`` (every figure, the ceilings, the choice rule)
and writes the study file that ``runtime.analysis.study_markdown`` renders through the output guard.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from runtime.analysis.pilot import StrategyCatalogs
from runtime.analysis.study import SIZES, Study, StudyInput, compute_study
from runtime.analysis.study_markdown import study_markdown
from runtime.core.errors import SchemaRouterError
from runtime.core.progress import Progress
from runtime.retrieval import RetrieverSpec
from schemarouter.application.retrieval_io import compiled_experiment
from schemarouter.application.surfaces import ChosenSurface
from schemarouter.output_guard import output_guard
from schemarouter.project import ProjectPaths


def strategy_catalogs(paths: ProjectPaths, spec: RetrieverSpec, sizes: Sequence[int]) -> StrategyCatalogs:
    """The experiment's catalogs for the study, strategies caching under ``build/retrieval``."""
    return StrategyCatalogs(paths.catalogs_dir, paths.build_dir / "retrieval", spec, sizes)


def run_study(
    paths: ProjectPaths,
    chosen: ChosenSurface,
    *,
    repeats: int = 3,
    ablations: bool = True,
    command: str = "sr bench retrieval --surface dev",
    progress: Progress | None = None,
    codes: Sequence[str] | None = None,
    sizes: tuple[int, ...] = SIZES,
    task_limit: int | None = None,
) -> Study:
    """The study; ``codes``, ``sizes`` and ``task_limit`` narrow it (tests), the defaults are the study."""
    if chosen.pilot is None or chosen.file is None:
        raise SchemaRouterError(
            "the strategy study runs on a pilot surface only (--surface dev): comparing strategies on the "
            "evaluation surface would be choosing on outcomes"
        )
    compiled = compiled_experiment(paths)
    given = StudyInput(
        compiled=compiled,
        tasks=sorted(chosen.tasks(paths), key=lambda t: t.task_id)[:task_limit],
        catalogs=strategy_catalogs(paths, RetrieverSpec.from_compiled(compiled), sizes),
        experiment=str(paths.experiment),
        surface=chosen.pilot.name,
        surface_sha256=chosen.pilot.sha256,
        command=command,
        sizes=sizes,
    )
    return compute_study(given, repeats=repeats, ablations=ablations, progress=progress, codes=codes)


def write_study(study: Study, path: Path, *, project_root: Path) -> None:
    """Write the study file through the output guard (atomically; never inside an experiment)."""
    output_guard(project_root).write_text(path, study_markdown(study) + "\n", option="--study-out")
