"""Score a terminal result set: refuse what may not be scored, then per-task rows, bootstrap, gate, files.

Order, each step refusing before the next may look at an outcome:

1. draft runs (executed without a freeze lock) are refused;
2. a freeze root hash that differs from the current lock is refused;
3. a set that is not terminal is sealed: only progress counts are shown (``SealedResultSet``);
4. ``on_scoring_started`` records the first scored run in the lock (the foundation's hook);
5. per-task rows, one index matrix, intervals, the gate, and the files in ``out_dir``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject
from runtime.run import jsonio
from runtime.run.engine_port import WALL_LATENCY_METRIC
from runtime.run.manifest import now_utc
from runtime.run.resultset import ResultSet, SealedResultSet, read_terminal_outcomes
from runtime.run.scope import RunScope
from runtime.run.store import EpisodeOutcome
from runtime.scoring.bootstrap import (
    FloatArray,
    TaskLayout,
    resample_counts,
    resample_indices,
    task_layout,
)
from runtime.scoring.epochs import collapse_epochs, epochs_block
from runtime.scoring.estimates import Estimates, estimate
from runtime.scoring.per_task import (
    LATENCY_FILE,
    PER_TASK_FILE,
    Row,
    latency_rows,
    per_task_rows,
)
from runtime.scoring.report_json import (
    LATENCY_REPORT_FILE,
    REPORT_FILE,
    build_latency_report,
    build_report,
)
from runtime.scoring.spec import ScoringSpec
from runtime.scoring.success_gate import GateResult, evaluate_gate

if TYPE_CHECKING:
    from runtime.engine.trace import EpisodeTrace

SCORING_FILE = "scoring.json"


# Recomputes one episode's metrics from its stored trace and raises SchemaRouterError on a mismatch
# (runtime/engine/metrics_audit.py for the real engine; the run package's engine port hands it out).
# It returns the trace it read and checked, or None (a fake engine's audit).
OutcomeAudit = Callable[[EpisodeOutcome], "EpisodeTrace | None"]

# Sees each audited outcome with the trace the audit read, as the audit goes (one pass, nothing held
# but what the observer keeps): the diagnosis derives its per-episode facts here instead of parsing
# every stored trace a second time (runtime/diagnostics/source.py ``Diagnoser.observe``).
TraceObserver = Callable[[EpisodeOutcome, "EpisodeTrace"], None]


@dataclass(frozen=True)
class DiagnosisInput:
    """What a diagnosis of a scored set is computed from: the stored outcomes with their traces, the
    per-task rows, and the very bootstrap (layout and resample counts) the estimates used."""

    spec: ScoringSpec
    scope: RunScope
    outcomes: Sequence[EpisodeOutcome]
    rows: Sequence[Row]
    layout: TaskLayout
    counts: FloatArray


# Computes report.json's ``diagnostics`` section from stored traces (runtime/diagnostics); None: none.
Diagnose = Callable[[DiagnosisInput], dict[str, Any] | None]


@dataclass(frozen=True)
class ScoreResult:
    """A scored result set: where the files are, the report, and how long the bootstrap took."""

    out_dir: Path
    report: dict[str, Any]
    gate: GateResult
    bootstrap_seconds: float


def pilot_block(result_set: ResultSet, spec: ScoringSpec | None = None) -> JSONObject | None:
    """report.json's ``pilot`` field for a pilot set (None on the evaluation surface). With ``spec``,
    ``full_scope``: every condition, catalog size and task of the pilot's surface, one epoch."""
    first = result_set.dirs[0].manifest
    if first.surface is None:
        return None
    full: JSONObject = {}
    if spec is not None:
        scope = result_set.scope
        full["full_scope"] = (
            tuple(scope.conditions) == tuple(spec.conditions)
            and tuple(scope.catalogs) == tuple(spec.catalog_sizes)
            and len(scope.tasks) == first.surface.tasks
            and scope.epochs == 1
        )
    return {
        "mark": "PILOT",
        "note": "A pilot on a surface other than the evaluation surface: never scoring of record, "
        "never in a lock or a golden file.",
        "surface": first.surface.name,
        "surface_sha256": first.surface.sha256,
        "draft": first.freeze.draft,
        **full,
    }


def check_scoreable(result_set: ResultSet, *, current_freeze_hash: str | None) -> None:
    """Steps 1-3: raise unless the set may be scored now."""
    pilots = {d.manifest.surface for d in result_set.dirs}
    if pilots != {None}:
        _check_pilot(result_set, pilots)
        return
    for d in result_set.dirs:
        if d.manifest.freeze.draft or d.manifest.freeze.root_hash is None:
            raise SchemaRouterError(
                f"{d.run_dir}: a draft run (executed without spec/freeze.lock) is never scored. "
                "Freeze the specs (`sr freeze`) and run again."
            )
    run_hash = result_set.dirs[0].manifest.freeze.root_hash
    if current_freeze_hash is None:
        raise SchemaRouterError("the specs are not frozen now (no spec/freeze.lock); scoring needs the lock")
    if run_hash != current_freeze_hash:
        raise SchemaRouterError(
            f"freeze root hash mismatch: the run executed under {run_hash}, the current lock is "
            f"{current_freeze_hash}. Results are scored only under the frozen spec they ran with."
        )
    if not result_set.terminal:
        raise SealedResultSet(result_set)


def _check_pilot(result_set: ResultSet, surfaces: set[Any]) -> None:
    """A pilot set: every directory a pilot on the same surface file, under one spec, terminal. A pilot
    may run on a draft; it is never scoring of record, so the lock is neither needed nor touched."""
    if None in surfaces or len(surfaces) != 1:
        raise SchemaRouterError(
            "these run directories mix pilot surfaces (or pilots and evaluation runs); "
            "score each surface's runs on their own"
        )
    if len({d.manifest.freeze for d in result_set.dirs}) != 1:
        raise SchemaRouterError("these pilot run directories ran under different specs")
    if not result_set.terminal:
        raise SealedResultSet(result_set)


def score_result_set(
    result_set: ResultSet,
    *,
    spec: ScoringSpec,
    current_freeze_hash: str | None,
    out_dir: Path,
    audit: OutcomeAudit,
    on_scoring_started: Callable[[str], None] | None = None,
    diagnose: Diagnose | None = None,
    observe: TraceObserver | None = None,
    on_audited: Callable[[Sequence[EpisodeOutcome]], None] | None = None,
) -> ScoreResult:
    """Steps 1-5: the scoring of record. ``audit`` recomputes each episode's metrics from its stored
    trace and raises on a mismatch: no stored outcome is scored on its own word. ``observe`` sees each
    outcome with the trace the audit returned, right after it passed; ``on_audited`` sees them all once
    every audit passed (report.html starts packing their traces then); ``diagnose`` (after every audit)
    computes report.json's ``diagnostics`` from the same traces and bootstrap."""
    check_scoreable(result_set, current_freeze_hash=current_freeze_hash)
    outcomes = read_terminal_outcomes(result_set, with_traces=True)
    for outcome in outcomes:
        trace = audit(outcome)
        if observe is not None and trace is not None:
            observe(outcome, trace)
    if on_audited is not None:
        on_audited(outcomes)
    pilot = result_set.dirs[0].manifest.pilot
    if on_scoring_started is not None and not pilot:  # a pilot is never scoring of record
        on_scoring_started("+".join(sorted(d.manifest.run_id for d in result_set.dirs)))
    return compute_scores(result_set, spec=spec, out_dir=out_dir, outcomes=outcomes, diagnose=diagnose)


def compute_scores(
    result_set: ResultSet,
    *,
    spec: ScoringSpec,
    out_dir: Path,
    outcomes: list[EpisodeOutcome] | None = None,
    diagnose: Diagnose | None = None,
) -> ScoreResult:
    """Step 5 alone (still refusing a set that is not terminal). Use ``score_result_set``; only
    ``sr bench run`` calls this directly, into a directory it deletes afterwards."""
    outcomes = outcomes if outcomes is not None else read_terminal_outcomes(result_set)
    scope = result_set.scope
    rows = per_task_rows(outcomes, scope, spec)

    started = time.perf_counter()
    layout = task_layout(scope.tasks, strata=spec.strata, languages=spec.languages)
    indices = resample_indices(layout, iterations=spec.bootstrap.iterations, seed=spec.bootstrap.seed)
    counts = resample_counts(indices, layout.n)
    estimates = _estimates(rows, scope, spec, layout, counts)
    lat_rows = latency_rows(outcomes, scope)
    latency = _latency_estimates(lat_rows, scope, spec, layout, counts)
    gate = evaluate_gate(
        spec.gate,
        estimates=estimates,
        rows=rows,
        metrics={m.id: m for m in spec.metrics},
        conditions=scope.conditions,
        catalogs=scope.catalogs,
    )
    bootstrap_seconds = time.perf_counter() - started
    diagnostics = None
    if diagnose is not None:  # from the same rows and resamples as the estimates
        collapsed = collapse_epochs(rows, scope.epochs)
        diagnostics = diagnose(
            DiagnosisInput(
                spec=spec, scope=scope, outcomes=outcomes, rows=collapsed, layout=layout, counts=counts
            )
        )

    report = _report(result_set, spec, rows, estimates, gate, layout, diagnostics)
    _write_files(out_dir, rows, lat_rows, report, latency)
    jsonio.write_json(out_dir / SCORING_FILE, _scoring_record(result_set, bootstrap_seconds))
    return ScoreResult(out_dir=out_dir, report=report, gate=gate, bootstrap_seconds=bootstrap_seconds)


def _estimates(
    rows: Sequence[Row], scope: RunScope, spec: ScoringSpec, layout: TaskLayout, counts: FloatArray
) -> Estimates:
    """Every deterministic metric's intervals and the paired differences. A task's epochs form one
    cluster: the bootstrap sees each task's mean over its epochs."""
    return estimate(
        collapse_epochs(rows, scope.epochs),
        metrics=[m for m in spec.metrics if m.deterministic],
        pair=(spec.gate.treatment, spec.gate.comparator),
        layout=layout,
        counts=counts,
        conditions=scope.conditions,
        catalogs=scope.catalogs,
        percentiles=spec.bootstrap.percentiles(),
    )


def _latency_estimates(
    lat_rows: Sequence[Row], scope: RunScope, spec: ScoringSpec, layout: TaskLayout, counts: FloatArray
) -> Estimates | None:
    """Wall latency's intervals on the same resamples; None when the spec has no latency metric or an
    episode has no latency."""
    measured = all(r[WALL_LATENCY_METRIC] is not None for r in lat_rows)
    if not measured or WALL_LATENCY_METRIC not in {m.id for m in spec.metrics}:
        return None
    return estimate(
        collapse_epochs(lat_rows, scope.epochs),
        metrics=[spec.metric(WALL_LATENCY_METRIC)],
        pair=None,
        layout=layout,
        counts=counts,
        conditions=scope.conditions,
        catalogs=scope.catalogs,
        percentiles=spec.bootstrap.percentiles(),
    )


def _report(
    result_set: ResultSet,
    spec: ScoringSpec,
    rows: Sequence[Row],
    estimates: Estimates,
    gate: GateResult,
    layout: TaskLayout,
    diagnostics: dict[str, Any] | None,
) -> dict[str, Any]:
    """report.json's content, with the provenance of the set's first run directory."""
    first = result_set.dirs[0].manifest
    scope = result_set.scope
    return build_report(
        spec=spec,
        scope=scope,
        agent=first.agent.name,
        freeze_root_hash=first.freeze.root_hash,
        source_commit=first.source.git_commit,
        estimates=estimates,
        gate=gate,
        pilot=pilot_block(result_set, spec),
        layout=layout,
        diagnostics=diagnostics,
        warnings=list(first.agent.warnings),
        epochs=None
        if scope.epochs == 1
        else epochs_block(
            rows,
            scope.epochs,
            conditions=scope.conditions,
            catalogs=scope.catalogs,
            confidence=float(spec.bootstrap.confidence),
        ),
    )


def _write_files(
    out_dir: Path,
    rows: Sequence[Row],
    lat_rows: Sequence[Row],
    report: dict[str, Any],
    latency: Estimates | None,
) -> None:
    """per_task.jsonl, per_task_latency.jsonl, report.json and latency.json into ``out_dir``."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise SchemaRouterError(f"{out_dir}: cannot write the report here ({err.strerror or err})") from None
    jsonio.write_jsonl(out_dir / PER_TASK_FILE, rows)
    jsonio.write_jsonl(out_dir / LATENCY_FILE, lat_rows)
    jsonio.write_json(out_dir / REPORT_FILE, report)
    jsonio.write_json(out_dir / LATENCY_REPORT_FILE, build_latency_report(latency, WALL_LATENCY_METRIC))


def _scoring_record(result_set: ResultSet, bootstrap_seconds: float) -> dict[str, Any]:
    """scoring.json: when, how long the bootstrap took, and which run directories went in."""
    return {
        "scored_at": now_utc().isoformat(),
        "bootstrap_seconds": round(bootstrap_seconds, 3),
        "inputs": [
            {
                "run_dir": str(d.run_dir),
                "run_id": d.manifest.run_id,
                "shard": d.manifest.shard.label(),
                "source_commit": d.manifest.source.git_commit,
                "source_dirty": d.manifest.source.dirty,
            }
            for d in result_set.dirs
        ],
    }
