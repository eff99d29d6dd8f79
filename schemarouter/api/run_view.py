"""``load_run(dir) -> Run``: a run directory read as typed values and Arrow tables."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.core.errors import SchemaRouterError
from runtime.engine.trace import EpisodeTrace
from runtime.run.manifest import RunManifest
from runtime.scoring.report_model import Report
from schemarouter.api.project import ProjectArg, project_paths
from schemarouter.project import ProjectPaths

if TYPE_CHECKING:
    import pyarrow

    from schemarouter.application.export_tables import RunTables


class Run:
    """One run directory: its manifest, its scored report, its per-episode and decision-point tables
    (``pyarrow.Table``; ``.to_pandas()`` where pandas is installed) and any episode's trace."""

    def __init__(self, run_dir: Path | str, *, project: ProjectArg | None = None) -> None:
        self.dir = Path(run_dir)
        # A run directory, or the report directory of merged shards (sr score DIR_1 ... DIR_N).
        if not any((self.dir / name).is_file() for name in ("manifest.json", "report.json")):
            raise SchemaRouterError(f"{self.dir}: not a run directory (no manifest.json)")
        self._project = project

    def __repr__(self) -> str:
        return f"Run({str(self.dir)!r})"

    @cached_property
    def manifest(self) -> RunManifest:
        from runtime.run import read_manifest

        return read_manifest(self.dir)

    @cached_property
    def report(self) -> Report:
        """report.json as a :class:`Report` (the run must be scored)."""
        from schemarouter.application.diagnostics import read_scored

        return Report.model_validate(read_scored(self.dir))

    @property
    def verdict(self) -> str:
        return self.report.gate.verdict

    @cached_property
    def _paths(self) -> ProjectPaths:
        if isinstance(self._project, ProjectPaths) and self._project.experiment in (
            None,
            self.manifest.experiment_id,
        ):
            return self._project
        root = self._project.root if isinstance(self._project, ProjectPaths) else (self._project or ".")
        if (self.dir / "manifest.json").is_file():
            return project_paths(root, self.manifest.experiment_id)
        return project_paths(root, self.report.experiment_id)

    @cached_property
    def _tables(self) -> RunTables:
        from schemarouter.application.export_tables import load_run_tables

        return load_run_tables(self._paths, self.dir)

    def episodes(self) -> pyarrow.Table:
        """One row per episode (per_task.jsonl, every row recomputed from the stored traces first), as
        a ``pyarrow.Table``. Needs pyarrow (``pip install -e '.[export]'``)."""
        from schemarouter.application.export_arrow import arrow_table

        tables = self._tables
        return arrow_table(tables.per_task, tables.per_task_columns)

    def decision_points(self) -> pyarrow.Table:
        """One row per model turn (exposure, ranking, decision, result; at a Recall@5 decision point the
        next required route and whether the top 5 held it), as a ``pyarrow.Table``."""
        from schemarouter.application.export_arrow import arrow_table
        from schemarouter.application.export_tables import DECISION_COLUMNS

        return arrow_table(self._tables.decision_points, DECISION_COLUMNS)

    def trace(self, task: str, condition: str, catalog: int, *, epoch: int = 1) -> EpisodeTrace:
        """The stored trace of one episode."""
        from runtime.engine.trace import read_trace
        from runtime.run.scope import EpisodeKey
        from runtime.run.store import EpisodeStore

        key = EpisodeKey(task, condition, int(catalog), epoch)
        with EpisodeStore(self.dir, readonly=True) as store:
            text = store.read_trace(key)
        if text is None:
            raise SchemaRouterError(f"{self.dir}: no stored episode {key.label()}")
        return read_trace(text)


def load_run(run_dir: Path | str, *, project: ProjectArg | None = None) -> Run:
    """The run in ``run_dir``; ``project``: its project (default: the current directory), needed by the
    tables (the tasks of the run's surface)."""
    return Run(run_dir, project=project)
