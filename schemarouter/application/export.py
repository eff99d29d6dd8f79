"""``sr export RUN_DIR --format inspect|parquet|csv``: a scored run in the formats other tools read.

Formats are registered under stable codes (``EXPORT_FORMATS``); each writes into ``--out`` (default
``RUN_DIR/export/``), every file atomically (``runtime.core.atomic_write``; the inspect log is written
to a temporary name and renamed), so an export that fails leaves no half-written file:

- ``parquet``: ``per_task.parquet`` and ``decision_points.parquet``;
- ``csv``: ``per_task.csv`` and ``decision_points.csv``;
- ``inspect``: ``inspect/<run_id>_<condition>_<catalog>.eval``, one inspect_ai log per condition x
  catalog (``export_inspect.py``); ``inspect view --log-dir DIR/inspect`` browses them.

The tables are ``export_tables.py``'s; the run must be scored and terminal, and every per-task row is
recomputed from the stored traces first, as ``sr score`` does (a hand-edited ``per_task.jsonl`` is
refused, naming the episode). ``--out`` (and the default) pass the output guard
(``schemarouter/output_guard.py``): never inside an experiment's folders or the project root.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from runtime.core.atomic_write import write_bytes_atomic
from runtime.core.errors import SchemaRouterError
from runtime.core.progress import Progress, announce
from runtime.core.registry import Registry, decorator
from schemarouter.application.export_tables import DECISION_COLUMNS, RunTables, load_run_tables
from schemarouter.output_guard import output_guard
from schemarouter.project import ProjectPaths


def _parquet(tables: RunTables, out: Path) -> list[Path]:
    from schemarouter.application.export_arrow import parquet_bytes

    return _two(
        out,
        "parquet",
        parquet_bytes(tables.per_task, tables.per_task_columns),
        parquet_bytes(tables.decision_points, DECISION_COLUMNS),
    )


def _csv(tables: RunTables, out: Path) -> list[Path]:
    from schemarouter.application.export_arrow import csv_bytes

    return _two(
        out,
        "csv",
        csv_bytes(tables.per_task, tables.per_task_columns),
        csv_bytes(tables.decision_points, DECISION_COLUMNS),
    )


def _two(out: Path, suffix: str, per_task: bytes, decision_points: bytes) -> list[Path]:
    files = [out / f"per_task.{suffix}", out / f"decision_points.{suffix}"]
    for path, data in zip(files, (per_task, decision_points), strict=True):
        write_bytes_atomic(path, data)
    return files


def _inspect(tables: RunTables, out: Path, *, progress: Progress | None = None) -> list[Path]:
    from schemarouter.application.export_inspect import write_inspect_logs

    return write_inspect_logs(tables, out / "inspect", progress=progress)


# The run's own files an export reads; --out may not be a place where one of them would be replaced.
RUN_INPUTS = ("manifest.json", "episodes.sqlite", "per_task.jsonl", "report.json")

Exporter = Callable[[RunTables, Path], list[Path]]
# The built-in formats register below; installed packages add theirs through the
# ``schemarouter.exporters`` entry points (``@exporter(code)`` on a function of (tables, out dir)). An
# exporter that also takes a keyword ``progress`` gets the export's progress callback (inspect does).
EXPORT_FORMATS: Registry[Exporter] = Registry("export format", group="exporters")


def exporter(code: str) -> Callable[[Exporter], Exporter]:
    """Register an export format under ``code`` (a stable code: what ``sr export --format`` names)."""
    return decorator(EXPORT_FORMATS, code)


for _code, _fn in (("csv", _csv), ("inspect", _inspect), ("parquet", _parquet)):
    EXPORT_FORMATS.add(_code, _fn, module=__name__)


@dataclass(frozen=True)
class ExportResult:
    files: tuple[Path, ...]
    per_task_rows: int
    decision_point_rows: int
    logs: int


def export_run(
    paths: ProjectPaths,
    *,
    run_dir: Path,
    formats: list[str],
    out: Path | None = None,
    progress: Progress | None = None,
) -> ExportResult:
    """Export the scored run in ``run_dir`` in every format of ``formats`` (``progress``: each stage, from
    the recomputation of every episode's metrics to the last file)."""
    unknown = [f for f in formats if f not in EXPORT_FORMATS]
    if unknown or not formats:
        raise SchemaRouterError(
            f"--format {','.join(formats) or '(none)'}: expected one or more of "
            f"{', '.join(sorted(EXPORT_FORMATS))}"
        )
    if not (run_dir / "manifest.json").is_file():
        raise SchemaRouterError(f"{run_dir}: not a run directory (no manifest.json)")
    guard = output_guard(paths.root, sources=[run_dir / name for name in RUN_INPUTS])
    target = guard.directory(out if out is not None else run_dir / "export", option="--out")
    tables = load_run_tables(paths, run_dir, progress=progress)
    files: list[Path] = []
    for code in dict.fromkeys(formats):
        announce(progress, f"writing {code}", 0)
        files.extend(_export(EXPORT_FORMATS[code], tables, target, progress))
    return ExportResult(
        files=tuple(files),
        per_task_rows=len(tables.per_task),
        decision_point_rows=len(tables.decision_points),
        logs=sum(1 for f in files if f.suffix == ".eval"),
    )


def _export(fn: Exporter, tables: RunTables, target: Path, progress: Progress | None) -> list[Path]:
    """Call an exporter, handing it ``progress`` when it takes that keyword."""
    if "progress" in inspect.signature(fn).parameters:
        return fn(tables, target, progress=progress)  # type: ignore[call-arg]
    return fn(tables, target)
