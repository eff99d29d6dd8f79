"""The tables a run exports: the per-task table and the decision-point table.

Read only from a scored, terminal run (``sr run`` scores it; ``sr score`` after a resume):

- **per task**: ``per_task.jsonl`` as scoring wrote it, one row per task x condition x catalog
  (``runtime/scoring/per_task.py`` documents its columns); checked against the store's episodes;
- **decision points**: one row per model turn of every episode, from its stored trace: what was
  exposed and ranked, the decision and its typed result, and, where the turn is a Recall@5 decision
  point (``after_tool_turn_recall``), the gold plan's next route and whether the ranking's top 5 held
  it, computed exactly as the metric is (``runtime/engine/metrics.py``).

A set that is not terminal is refused by the store's reader with progress counts only: no partial
outcome leaves a run. Wall latency is not deterministic and is in neither table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from runtime.core import safe_json
from runtime.core.errors import SchemaRouterError
from runtime.core.progress import Progress, counted
from runtime.engine.metrics import executed_calls_from_turns
from runtime.engine.trace import EpisodeTrace, read_trace
from runtime.run import load_result_set, read_manifest
from runtime.run.manifest import RunManifest
from runtime.run.resultset import read_terminal_outcomes
from runtime.run.scope import RunScope
from runtime.run.store import EpisodeOutcome
from runtime.scoring.per_task import KEY_FIELDS, PER_TASK_FILE
from runtime.surface.model import Task
from runtime.surface.plan import next_required_route
from schemarouter.project import ProjectPaths

Kind = Literal["string", "int", "float", "bool", "list"]
Row = dict[str, Any]

DECISION_COLUMNS: tuple[tuple[str, Kind], ...] = (
    ("task_id", "string"),
    ("condition", "string"),
    ("catalog", "int"),
    ("stratum", "string"),
    ("language", "string"),
    ("turn", "int"),
    ("exposed_route_ids", "list"),
    ("exposed_count", "int"),
    ("ranking_top5", "list"),
    ("retrieval_calls", "int"),
    ("schema_tokens", "int"),
    ("input_tokens", "int"),
    ("decision_kind", "string"),
    ("tool_name", "string"),
    ("route_id", "string"),
    ("status", "string"),
    ("error_class", "string"),
    ("recall_decision_point", "bool"),
    ("needed_route_id", "string"),
    ("needed_in_top5", "bool"),
)


@dataclass(frozen=True)
class Episode:
    """One exported episode: its trace and its task (for the inspect log's transcript)."""

    trace: EpisodeTrace
    task: Task


@dataclass(frozen=True)
class RunTables:
    run_dir: Path
    manifest: RunManifest
    per_task: list[Row]
    per_task_columns: tuple[tuple[str, Kind], ...]
    decision_points: list[Row]
    episodes: list[Episode]
    report: dict[str, Any]
    catalogs_dir: Path  # the run's experiment's catalogs (the inspect log's tool schemas)


def load_run_tables(paths: ProjectPaths, run_dir: Path, *, progress: Progress | None = None) -> RunTables:
    """The tables of the scored run in ``run_dir`` (``progress``: the recomputation and the traces read)."""
    manifest = read_manifest(run_dir)
    result_set = load_result_set([run_dir])
    outcomes = read_terminal_outcomes(result_set, with_traces=True)  # refuses a set that is not terminal
    per_task = _read_per_task(run_dir)
    keys = [(o.key.task_id, o.key.condition, o.key.catalog) for o in outcomes]
    if sorted(keys) != sorted((r["task_id"], r["condition"], r["catalog"]) for r in per_task):
        raise SchemaRouterError(
            f"{run_dir / PER_TASK_FILE}: does not list the store's episodes; score the run again (sr score)"
        )
    _check_recomputed(paths, run_dir, result_set.scope, outcomes, per_task, progress)
    tasks = _tasks(paths, manifest)
    episodes, decision_points = [], []
    for outcome in counted(progress, "reading traces", outcomes, unit="episodes"):
        if outcome.trace_json is None:
            raise SchemaRouterError(f"{run_dir}: episode {outcome.key.label()} has no stored trace")
        trace = read_trace(outcome.trace_json)
        task = tasks.get(trace.task_id)
        if task is None:
            raise SchemaRouterError(f"{run_dir}: task {trace.task_id} is not in the run's surface")
        episodes.append(Episode(trace, task))
        decision_points.extend(decision_rows(trace, task))
    return RunTables(
        run_dir=run_dir,
        manifest=manifest,
        per_task=per_task,
        per_task_columns=per_task_columns(per_task),
        decision_points=decision_points,
        episodes=episodes,
        report=_read_report(run_dir),
        catalogs_dir=paths.with_experiment(manifest.experiment_id).catalogs_dir,
    )


def _check_recomputed(
    paths: ProjectPaths,
    run_dir: Path,
    scope: RunScope,
    outcomes: list[EpisodeOutcome],
    per_task: list[Row],
    progress: Progress | None,
) -> None:
    """Recompute every episode's metrics from its stored trace and the per-task rows from them, as
    ``sr score`` does (the same audit and ``per_task_rows``), and refuse a per-task row that differs:
    an export never carries a value on the word of a file that can be edited by hand."""
    from compiler import compile_project
    from runtime.run.engine_port import EngineAdapter
    from runtime.scoring import ScoringSpec
    from runtime.scoring.per_task import per_task_rows
    from schemarouter.application.score import scoring_setup

    compiled = compile_project(paths, write_manifest=False)
    audit = EngineAdapter().metrics_audit(scoring_setup(paths, compiled, [run_dir]))
    for outcome in counted(progress, "recomputing metrics", outcomes, unit="episodes"):
        audit(outcome)
    recomputed = {_row_key(r): r for r in per_task_rows(outcomes, scope, ScoringSpec.from_compiled(compiled))}
    for row in per_task:
        fresh = recomputed.get(_row_key(row))
        if fresh != row:
            task, condition, catalog, epoch = _row_key(row)
            differing = sorted(k for k in set(row) | set(fresh or {}) if row.get(k) != (fresh or {}).get(k))
            raise SchemaRouterError(
                f"{run_dir / PER_TASK_FILE}: episode task {task}, condition {condition}, catalog {catalog}, "
                f"epoch {epoch} differs from its recomputation from the stored trace "
                f"({', '.join(differing)}); not exported. Score the run again (sr score) or restore the file"
            )


def _row_key(row: Row) -> tuple[str, str, int, int]:
    return (row["task_id"], row["condition"], row["catalog"], row.get("epoch", 1))


def decision_rows(trace: EpisodeTrace, task: Task) -> list[Row]:
    """One row per turn of ``trace`` (columns: ``DECISION_COLUMNS``)."""
    turns = [t.model_dump(mode="json") for t in trace.turns]
    executed = executed_calls_from_turns(trace.turns)
    rows = []
    for turn, raw in zip(trace.turns, turns, strict=True):
        exposed = trace.exposed_route_ids(turn)
        point = bool(turn.after_tool_turn_recall) and turn.ranking_top5 is not None
        needed = None
        if point:
            needed = next_required_route(task, [c for n, c in executed if n < turn.turn])
            point = needed is not None
        result = turn.result
        rows.append(
            {
                "task_id": trace.task_id,
                "condition": trace.condition,
                "catalog": trace.catalog,
                "stratum": trace.stratum,
                "language": trace.language,
                "turn": turn.turn,
                "exposed_route_ids": list(exposed),
                "exposed_count": len(exposed),
                "ranking_top5": None if turn.ranking_top5 is None else list(turn.ranking_top5),
                "retrieval_calls": len(raw["retrieval_calls"]),
                "schema_tokens": turn.schema_tokens,
                "input_tokens": turn.input_tokens,
                "decision_kind": turn.decision.kind,
                "tool_name": turn.decision.tool_name,
                "route_id": None if result is None else result.route_id,
                "status": None if result is None else result.status,
                "error_class": None if result is None else result.error_class,
                "recall_decision_point": point,
                "needed_route_id": needed if point else None,
                "needed_in_top5": (needed in (turn.ranking_top5 or ())) if point else None,
            }
        )
    return rows


def per_task_columns(rows: list[Row]) -> tuple[tuple[str, Kind], ...]:
    """The per-task table's columns: the key fields, then every other column in name order, each typed
    by its values (integers only: int; any float: float)."""
    names = sorted({k for r in rows for k in r} - set(KEY_FIELDS))
    out: list[tuple[str, Kind]] = [(k, "int" if k == "catalog" else "string") for k in KEY_FIELDS]
    for name in names:
        values = [r.get(name) for r in rows if r.get(name) is not None]
        if all(isinstance(v, str) for v in values) and values:
            out.append((name, "string"))
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            out.append((name, "int"))
        else:
            out.append((name, "float"))
    return tuple(out)


def _read_per_task(run_dir: Path) -> list[Row]:
    path = run_dir / PER_TASK_FILE
    if not path.is_file():
        raise SchemaRouterError(f"{run_dir}: not scored yet (no {PER_TASK_FILE}); run `sr score {run_dir}`")
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = safe_json.loads(line)
        except safe_json.JsonTextError as err:
            raise SchemaRouterError(f"{path}:{lineno}:{err.column}: {err.message}") from None
        if not isinstance(row, dict) or any(k not in row for k in KEY_FIELDS):
            raise SchemaRouterError(f"{path}:{lineno}:1: not a per-task row")
        rows.append(row)
    return rows


def _read_report(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "report.json"
    if not path.is_file():
        return {}
    data = safe_json.loads(path.read_bytes())
    return data if isinstance(data, dict) else {}


def _tasks(paths: ProjectPaths, manifest: RunManifest) -> dict[str, Task]:
    from runtime.surface import load_surface, load_surface_file

    if manifest.surface is not None:
        from schemarouter.application.surfaces import pilot_surface_file

        tasks = load_surface_file(pilot_surface_file(paths, manifest.surface))
    else:
        tasks = load_surface(paths.with_experiment(manifest.experiment_id).catalogs_dir)
    return {t.task_id: t for t in tasks}
