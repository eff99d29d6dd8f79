"""``sr explain`` and ``sr compare``: the diagnostics of scored runs, read from their stored files.

Neither re-runs an episode nor scores anything: explain reads report.json's ``diagnostics`` (written
at scoring from the stored traces); compare reads both runs' report.json and per_task.jsonl.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject
from runtime.diagnostics.compare import compare_runs
from runtime.report.compare_text import render_compare
from runtime.report.console import scope_note
from runtime.report.explain import diagnostics_tables, render_text
from runtime.run import jsonio
from runtime.scoring.per_task import PER_TASK_FILE
from runtime.scoring.report_json import REPORT_FILE
from schemarouter.application.compiled import compiled_without_writing
from schemarouter.application.condition_retrievers import condition_retrievers, retriever_line
from schemarouter.project import ProjectPaths


@dataclass(frozen=True)
class Explained:
    text: str
    report: dict[str, Any]


def read_scored(run_dir: Path) -> dict[str, Any]:
    """A scored directory's report.json (a clean error when there is none)."""
    path = run_dir / REPORT_FILE
    if not path.is_file():
        raise SchemaRouterError(
            f"{run_dir}: no {REPORT_FILE}; the run is not scored (sr status {run_dir}; sr score {run_dir})"
        )
    report = jsonio.read_json(path)
    if not isinstance(report, dict) or "gate" not in report:
        raise SchemaRouterError(f"{path}: not a SchemaRouter report")
    return report


def explain_run(
    run_dir: Path,
    *,
    condition: str | None = None,
    catalog: int | None = None,
    retrievers: dict[str, str] | None = None,
) -> Explained:
    """``retrievers``: each condition's retrieval strategy (``condition_retrievers``), printed in the
    header when given."""
    report = read_scored(run_dir)
    if not report.get("diagnostics"):
        raise SchemaRouterError(
            f"{run_dir / REPORT_FILE}: version {report.get('report_version')} holds no diagnostics; "
            f"score it again to write them from the stored traces: sr score {run_dir}"
        )
    scope = report["scope"]
    if condition is not None and condition not in scope["conditions"]:
        raise SchemaRouterError(
            f"--condition {condition}: not in this run (its conditions: {', '.join(scope['conditions'])})"
        )
    if catalog is not None and catalog not in scope["catalogs"]:
        sizes = ", ".join(map(str, scope["catalogs"]))
        raise SchemaRouterError(f"--catalog {catalog}: not in this run (its catalog sizes: {sizes})")
    gate = report["gate"]
    header = [
        f"{'PILOT: ' if report.get('pilot') else ''}Experiment {report['experiment_id']}, agent "
        f"{report['agent']}: gate {gate['treatment']} vs {gate['comparator']}: {gate['verdict']}"
        + scope_note(report),
        "From the stored traces (report.json diagnostics); ⚑ marks an interval that is not an honest "
        "interval (one task per cell, or undefined resamples).",
    ]
    if retrievers is not None:
        shown = [c for c in scope["conditions"] if condition is None or c == condition]
        header.append(retriever_line(retrievers, shown))
    header.append("")
    tables = diagnostics_tables(report, condition=condition, catalog=catalog)
    return Explained(text="\n".join(header) + "\n" + render_text(tables), report=report)


def run_retrievers(project: ProjectPaths, run_dir: Path) -> dict[str, str] | None:
    """Each condition's retriever for the run's experiment, from the project's current spec; None
    when the run is not scored or its experiment's spec cannot be read (explain leaves the line out)."""
    try:
        experiment = read_scored(run_dir)["experiment_id"]
        spec = compiled_without_writing(project.with_experiment(str(experiment)))
    except SchemaRouterError:
        return None
    return condition_retrievers(spec)


def compare_run_dirs(run_a: Path, run_b: Path) -> tuple[str, JSONObject]:
    """The comparison text and its data (B - A over the common tasks)."""
    reports, rows = [], []
    for run_dir in (run_a, run_b):
        reports.append(read_scored(run_dir))
        per_task = run_dir / PER_TASK_FILE
        if not per_task.is_file():
            raise SchemaRouterError(
                f"{run_dir}: no {PER_TASK_FILE}; score the run first (sr score {run_dir})"
            )
        rows.append(jsonio.read_jsonl(per_task))
    titles = {d["id"]: d["title"] for d in reports[0].get("metric_definitions", [])}
    if not _common_episodes(rows[0], rows[1]):
        from schemarouter.application.compare_surfaces import compare_across_surfaces

        return compare_across_surfaces((run_a, run_b), reports, rows, titles)
    result = compare_runs(reports[0], rows[0], reports[1], rows[1])
    return render_compare(result, str(run_a), str(run_b), titles), result


def _common_episodes(rows_a: list[dict[str, Any]], rows_b: list[dict[str, Any]]) -> bool:
    keys = {(r["task_id"], r["condition"], r["catalog"]) for r in rows_a}
    return any((r["task_id"], r["condition"], r["catalog"]) in keys for r in rows_b)
