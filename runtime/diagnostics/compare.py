"""Paired differences between two scored runs (``sr compare RUN_A RUN_B``): B - A per metric, condition
and catalog size over the tasks both scored, with bootstrap intervals and task-pass flips.

Read from each run's report.json (version 2: ``metric_definitions``) and per_task.jsonl; nothing is
re-run. The bootstrap is run A's (iterations, seed, percentiles) over the common tasks' stratum x
language cells (strata and languages in the order run A's rows first show them), with the same
``task_layout`` / ``resample_indices`` scoring uses; tasks move together across conditions and runs,
so every difference is paired. Two runs of different experiments or freeze roots may be compared;
the result says so and is never a gate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np

from runtime.core.errors import SchemaRouterError
from runtime.diagnostics.flags import interval_flag
from runtime.run.scope import TaskRef
from runtime.scoring.bootstrap import (
    percentile_interval,
    ratio,
    resample_counts,
    resample_indices,
    task_layout,
)
from runtime.scoring.estimates import round_sig

PASS_METRIC = "task_pass"


class RunIdentity(TypedDict):
    """Who a compared run is (as its report.json says)."""

    experiment_id: str | None
    freeze_root_hash: str | None
    agent: str | None
    surface: str
    verdict: str | None


class DifferenceInterval(TypedDict):
    """B - A of one metric: point, interval, undefined resamples and the interval's flag."""

    point: float | None
    ci_low: float | None
    ci_high: float | None
    undefined_resamples: int
    flag: str | None


class FlipCell(TypedDict):
    """The common tasks of one condition x catalog, and those that pass in one run only."""

    tasks: int
    a_only: list[str]
    b_only: list[str]


class CompareBootstrap(TypedDict):
    iterations: int
    seed: int
    percentiles: list[float]


class PairedComparison(TypedDict):
    """``sr compare``'s paired result (its ``--json``)."""

    a: RunIdentity
    b: RunIdentity
    differs: list[str]
    gate_allowed: bool
    common_tasks: int
    common_episodes: int
    bootstrap: CompareBootstrap
    max_tasks_per_cell: int
    notes: list[str]
    by_condition: dict[str, dict[str, dict[str, DifferenceInterval]]]  # [condition][catalog][metric]
    flips: dict[str, dict[str, FlipCell]]  # [condition][catalog]


def identity(report: Mapping[str, Any]) -> RunIdentity:
    pilot = report.get("pilot") or {}
    return {
        "experiment_id": report.get("experiment_id"),
        "freeze_root_hash": report.get("freeze_root_hash"),
        "agent": report.get("agent"),
        "surface": pilot.get("surface", "evaluation"),
        "verdict": report.get("gate", {}).get("verdict"),
    }


EpisodeKey = tuple[str, str, int]  # task, condition, catalog
Rows = Mapping[EpisodeKey, Mapping[str, Any]]


@dataclass(frozen=True)
class _Resampling:
    """Run A's bootstrap over the common tasks: resample counts, the task positions and cells."""

    counts: Any  # numpy (iterations x tasks) resample counts
    percentiles: tuple[float, float]
    position: Mapping[str, int]
    cell_of: Any  # numpy: the cell of each task position
    max_tasks_per_cell: int


def compare_runs(
    report_a: Mapping[str, Any],
    rows_a: Sequence[Mapping[str, Any]],
    report_b: Mapping[str, Any],
    rows_b: Sequence[Mapping[str, Any]],
) -> PairedComparison:
    _require_definitions(report_a, report_b)
    ida, idb = identity(report_a), identity(report_b)
    differs = [k for k in ("experiment_id", "freeze_root_hash", "agent", "surface") if ida[k] != idb[k]]
    defs_b = {d["id"]: d for d in report_b["metric_definitions"]}
    metrics = [d for d in report_a["metric_definitions"] if defs_b.get(d["id"]) == d]
    index_a = {(r["task_id"], r["condition"], r["catalog"]): r for r in rows_a}
    index_b = {(r["task_id"], r["condition"], r["catalog"]): r for r in rows_b}
    common_keys, cells, mismatched = _common_episodes(index_a, index_b)
    tasks = sorted({k[0] for k in common_keys})
    if not tasks:
        raise SchemaRouterError(
            "the two runs share no task x condition x catalog episode; nothing to compare"
        )
    boot = report_a["bootstrap"]
    resampling = _resampling(boot, rows_a, tasks, cells)
    order = {c: i for i, c in enumerate(report_a.get("scope", {}).get("conditions", []))}
    by_condition, flips = _per_condition(metrics, common_keys, index_a, index_b, resampling, order)
    return {
        "a": ida,
        "b": idb,
        "differs": differs,
        "gate_allowed": not differs,
        "common_tasks": len(tasks),
        "common_episodes": len(common_keys),
        "bootstrap": {
            "iterations": boot["iterations"],
            "seed": boot["seed"],
            "percentiles": list(resampling.percentiles),
        },
        "max_tasks_per_cell": resampling.max_tasks_per_cell,
        "notes": _notes(boot, report_b.get("bootstrap", {}), mismatched),
        "by_condition": by_condition,
        "flips": flips,
    }


def _require_definitions(report_a: Mapping[str, Any], report_b: Mapping[str, Any]) -> None:
    for name, report in (("RUN_A", report_a), ("RUN_B", report_b)):
        if "metric_definitions" not in report:
            raise SchemaRouterError(
                f"{name}: report.json version {report.get('report_version')} has no metric definitions; "
                "score the run again (`sr score RUN_DIR`) to write version 2"
            )


def _common_episodes(
    index_a: Rows, index_b: Rows
) -> tuple[list[EpisodeKey], dict[str, tuple[str, str]], set[str]]:
    """The episodes both runs scored (by catalog, condition, task), each task's stratum x language
    cell, and the tasks left out because the two runs place them in different cells."""
    common_keys = sorted(set(index_a) & set(index_b), key=lambda k: (k[2], k[1], k[0]))
    cells: dict[str, tuple[str, str]] = {}
    mismatched = set()
    for key in common_keys:
        a, b = index_a[key], index_b[key]
        if (a["stratum"], a["language"]) != (b["stratum"], b["language"]):
            mismatched.add(key[0])
        cells[key[0]] = (a["stratum"], a["language"])
    return [k for k in common_keys if k[0] not in mismatched], cells, mismatched


def _resampling(
    boot: Mapping[str, Any],
    rows_a: Sequence[Mapping[str, Any]],
    tasks: Sequence[str],
    cells: Mapping[str, tuple[str, str]],
) -> _Resampling:
    """Run A's bootstrap (iterations, seed, percentiles) over the tasks' cells, strata and languages in
    the order run A's rows first show them."""
    layout = task_layout(
        [TaskRef(task_id=t, stratum=cells[t][0], language=cells[t][1]) for t in tasks],
        strata=list(dict.fromkeys(r["stratum"] for r in rows_a)),
        languages=list(dict.fromkeys(r["language"] for r in rows_a)),
    )
    counts = resample_counts(
        resample_indices(layout, iterations=int(boot["iterations"]), seed=int(boot["seed"])), layout.n
    )
    cell_of = np.zeros(layout.n, dtype=np.int64)
    for c, (start, end) in enumerate(layout.cell_ranges):
        cell_of[start:end] = c
    return _Resampling(
        counts=counts,
        percentiles=(float(boot["percentiles"][0]), float(boot["percentiles"][1])),
        position=layout.position(),
        cell_of=cell_of,
        max_tasks_per_cell=max((e - s for s, e in layout.cell_ranges), default=0),
    )


def _per_condition(
    metrics: Sequence[Mapping[str, Any]],
    common_keys: Sequence[EpisodeKey],
    index_a: Rows,
    index_b: Rows,
    resampling: _Resampling,
    order: Mapping[str, int],
) -> tuple[dict[str, dict[str, dict[str, DifferenceInterval]]], dict[str, dict[str, FlipCell]]]:
    """Per condition x catalog (run A's condition order): each shared metric's paired difference, and
    the task-pass flips."""
    groups: dict[tuple[str, int], list[EpisodeKey]] = {}
    for key in common_keys:
        groups.setdefault((key[1], key[2]), []).append(key)
    by_condition: dict[str, dict[str, dict[str, DifferenceInterval]]] = {}
    flips: dict[str, dict[str, FlipCell]] = {}
    for (condition, catalog), keys in sorted(
        groups.items(), key=lambda g: (order.get(g[0][0], len(order)), g[0][0], g[0][1])
    ):
        block: dict[str, DifferenceInterval] = {}
        for metric in metrics:
            interval = _difference(metric, keys, index_a, index_b, resampling)
            if interval is not None:
                block[metric["id"]] = interval
        by_condition.setdefault(condition, {})[str(catalog)] = block
        flips.setdefault(condition, {})[str(catalog)] = _flips(keys, index_a, index_b)
    return by_condition, flips


def _flips(keys: Sequence[EpisodeKey], index_a: Rows, index_b: Rows) -> FlipCell:
    a_pass = {k[0]: index_a[k].get(PASS_METRIC) for k in keys}
    b_pass = {k[0]: index_b[k].get(PASS_METRIC) for k in keys}
    return {
        "tasks": len(keys),
        "a_only": sorted(t for t in a_pass if a_pass[t] and not b_pass[t]),
        "b_only": sorted(t for t in b_pass if b_pass[t] and not a_pass[t]),
    }


def _notes(boot: Mapping[str, Any], boot_b: Mapping[str, Any], mismatched: set[str]) -> list[str]:
    notes = []
    if any(boot_b.get(k) != boot.get(k) for k in ("iterations", "seed", "confidence")):
        notes.append("the runs' bootstrap specs differ; RUN_A's is used")
    if mismatched:
        notes.append(
            f"{len(mismatched)} task(s) left out: their stratum or language differs between the runs"
        )
    return notes


def _columns(
    components: Sequence[str],
    keys: Sequence[EpisodeKey],
    index_a: Rows,
    index_b: Rows,
    position: Mapping[str, int],
) -> tuple[dict[tuple[str, str], Any], Any]:
    """Per side and component, the values by task position (0 where absent); and where any is present."""
    n = len(position)
    columns = {}
    present = np.zeros(n, dtype=bool)
    for side, index in (("a", index_a), ("b", index_b)):
        for component in components:
            column = np.zeros(n)
            for key in keys:
                value = index[key].get(component)
                if value is not None:
                    column[position[key[0]]] = float(value)
                    present[position[key[0]]] = True
            columns[(side, component)] = column
    return columns, present


def _difference(
    metric: Mapping[str, Any],
    keys: Sequence[EpisodeKey],
    index_a: Rows,
    index_b: Rows,
    resampling: _Resampling,
) -> DifferenceInterval | None:
    counts, percentiles, cell_of = resampling.counts, resampling.percentiles, resampling.cell_of
    n = counts.shape[1]
    components = (
        [metric["numerator"], metric["denominator"]] if metric["aggregate"] == "ratio" else [metric["id"]]
    )
    columns, present = _columns(components, keys, index_a, index_b, resampling.position)
    if not present.any():
        return None
    if metric["aggregate"] == "ratio":
        num, den = components
        parts = {}
        for side in ("a", "b"):
            s_num, s_den = columns[(side, num)], columns[(side, den)]
            point = ratio(s_num.sum(keepdims=True), s_den.sum(keepdims=True))[0]
            parts[side] = (point, ratio(counts @ s_num, counts @ s_den))
        point_value = parts["b"][0] - parts["a"][0]
        resampled = parts["b"][1] - parts["a"][1]
        contributing = (columns[("a", den)] > 0) | (columns[("b", den)] > 0)
    else:
        diff = columns[("b", metric["id"])] - columns[("a", metric["id"])]
        divisor = float(len(keys)) if metric["aggregate"] == "mean" else 1.0
        point_value = diff.sum() / divisor
        resampled = (counts @ diff) / divisor
        contributing = present
    interval = percentile_interval(float(point_value), resampled, percentiles)
    per_cell = np.bincount(cell_of[contributing], minlength=int(cell_of.max()) + 1 if n else 0)
    low, high = round_sig(interval.ci_low), round_sig(interval.ci_high)
    point = round_sig(interval.point)
    return {
        "point": point,
        "ci_low": low,
        "ci_high": high,
        "undefined_resamples": interval.undefined_resamples,
        "flag": interval_flag(
            point,
            low,
            high,
            undefined=interval.undefined_resamples,
            iterations=int(counts.shape[0]),
            max_tasks_per_cell=int(per_cell.max()) if per_cell.size else 0,
        ),
    }
