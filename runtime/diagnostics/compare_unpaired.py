"""``sr compare`` of two runs that share no episode (different surfaces): unpaired condition contrasts.

Two runs on different surfaces hold no common task, so nothing can be paired. What can be compared is
each run's own contrast of the gate's treatment and comparator (SR-5-STATE-AWARE - SR-PROGRESSIVE-STATIC),
per metric and catalog size: within a run the contrast is paired by task; between the runs it is not.

Each run is resampled on its own with runtime/scoring's stratified task-cluster bootstrap
(``task_layout``, ``resample_indices``, ``resample_counts``; a mean metric is the mean of the per-task
values, a ratio metric a ratio of sums, as in scoring; cells in the order the run's rows first show
them, as the paired ``sr compare`` does). RUN_A uses its report's bootstrap seed; RUN_B the named seed
``unpaired_seed(seed_B)``, so the
two resample streams are independent even when both reports name the same seed (a shared stream would
pair tasks that have nothing in common). The difference of contrasts B - A is taken resample by resample
over the two independent streams: an unpaired percentile interval.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

import numpy as np

from runtime.core.errors import SchemaRouterError
from runtime.diagnostics.compare import RunIdentity
from runtime.run.scope import TaskRef
from runtime.scoring.bootstrap import (
    FloatArray,
    percentile_interval,
    ratio,
    resample_counts,
    resample_indices,
    task_layout,
)
from runtime.scoring.estimates import round_sig

UNPAIRED_SEED_LABEL = "sr compare unpaired RUN_B"


class ContrastInterval(TypedDict):
    """A contrast's point and percentile interval as ``sr compare --json`` writes it (the in-memory
    interval is ``runtime.scoring.bootstrap.Interval``)."""

    point: float | None
    ci_low: float | None
    ci_high: float | None
    undefined_resamples: int


class Contrasts(TypedDict):
    """One metric at one catalog: each run's treatment - comparator contrast, and B - A of them."""

    a: ContrastInterval
    b: ContrastInterval
    b_minus_a: ContrastInterval


class UnpairedBootstrap(TypedDict):
    iterations: int
    seed_a: int
    seed_b: int
    seed_b_rule: str


class UnpairedComparison(TypedDict):
    """``sr compare``'s unpaired result (its ``--json``); the application adds who the runs are and the
    ``sr run`` that would make a paired comparison possible."""

    unpaired: bool
    why: str
    treatment: str
    comparator: str
    bootstrap: UnpairedBootstrap
    by_catalog: dict[str, dict[str, Contrasts]]  # [catalog][metric]
    a: NotRequired[RunIdentity]
    b: NotRequired[RunIdentity]
    suggestions: NotRequired[list[str]]


def unpaired_seed(seed: int) -> int:
    """RUN_B's named seed: the first 8 bytes of sha256("<label>:<seed>"), so never RUN_A's stream."""
    return int(hashlib.sha256(f"{UNPAIRED_SEED_LABEL}:{seed}".encode()).hexdigest()[:16], 16) % 2**63


def _contrast(
    report: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    catalog: int,
    metric: Mapping[str, Any],
    seed: int,
) -> tuple[float, FloatArray]:
    gate = report["gate"]
    treatment, comparator = gate["treatment"], gate["comparator"]
    by_key = {(r["task_id"], r["condition"]): r for r in rows if int(r["catalog"]) == catalog}
    tasks = sorted({t for t, c in by_key if c == treatment} & {t for t, c in by_key if c == comparator})
    if not tasks:
        return float("nan"), np.full(int(report["bootstrap"]["iterations"]), np.nan)
    refs = [
        TaskRef(
            task_id=t, stratum=by_key[(t, treatment)]["stratum"], language=by_key[(t, treatment)]["language"]
        )
        for t in tasks
    ]
    strata = list(dict.fromkeys(r["stratum"] for r in rows))
    languages = list(dict.fromkeys(r["language"] for r in rows))
    layout = task_layout(refs, strata=strata, languages=languages)
    counts = resample_counts(
        resample_indices(layout, iterations=int(report["bootstrap"]["iterations"]), seed=seed), layout.n
    )

    def column(condition: str, field: str) -> FloatArray:
        return np.array([float(by_key[(t, condition)][field]) for t in layout.task_ids])

    def statistic(condition: str) -> tuple[float, FloatArray]:
        if metric["aggregate"] == "ratio":
            num, den = column(condition, metric["numerator"]), column(condition, metric["denominator"])
            point = float(ratio(np.array(num.sum()), np.array(den.sum())))
            return point, ratio(counts @ num, counts @ den)
        values = column(condition, metric["id"])
        if metric["aggregate"] == "count":
            return float(values.sum()), counts @ values
        return float(values.mean()), (counts @ values) / layout.n

    point_t, resampled_t = statistic(treatment)
    point_c, resampled_c = statistic(comparator)
    return point_t - point_c, resampled_t - resampled_c


def _interval(point: float, resampled: FloatArray, percentiles: tuple[float, float]) -> ContrastInterval:
    interval = percentile_interval(point, resampled, percentiles)
    return {
        "point": round_sig(interval.point),
        "ci_low": round_sig(interval.ci_low),
        "ci_high": round_sig(interval.ci_high),
        "undefined_resamples": interval.undefined_resamples,
    }


def compare_unpaired(
    report_a: Mapping[str, Any],
    rows_a: Sequence[Mapping[str, Any]],
    report_b: Mapping[str, Any],
    rows_b: Sequence[Mapping[str, Any]],
) -> UnpairedComparison:
    """Each run's treatment - comparator contrast per metric and catalog, and B - A, unpaired."""
    pair_a = (report_a["gate"]["treatment"], report_a["gate"]["comparator"])
    pair_b = (report_b["gate"]["treatment"], report_b["gate"]["comparator"])
    if pair_a != pair_b:
        raise SchemaRouterError(
            f"the two runs' gates contrast different conditions ({' - '.join(pair_a)} vs "
            f"{' - '.join(pair_b)}); nothing to compare unpaired"
        )
    defs_b = {d["id"]: d for d in report_b["metric_definitions"]}
    metrics = [d for d in report_a["metric_definitions"] if defs_b.get(d["id"]) == d]
    catalogs = sorted({int(r["catalog"]) for r in rows_a} & {int(r["catalog"]) for r in rows_b})
    seed_a = int(report_a["bootstrap"]["seed"])
    seed_b = unpaired_seed(int(report_b["bootstrap"]["seed"]))
    percentiles = tuple(float(p) for p in report_a["bootstrap"]["percentiles"])
    assert len(percentiles) == 2
    low_high = (percentiles[0], percentiles[1])
    by_catalog: dict[str, dict[str, Contrasts]] = {}
    for catalog in catalogs:
        block: dict[str, Contrasts] = {}
        for metric in metrics:
            point_a, resampled_a = _contrast(report_a, rows_a, catalog, metric, seed_a)
            point_b, resampled_b = _contrast(report_b, rows_b, catalog, metric, seed_b)
            block[metric["id"]] = {
                "a": _interval(point_a, resampled_a, low_high),
                "b": _interval(point_b, resampled_b, low_high),
                "b_minus_a": _interval(point_b - point_a, resampled_b - resampled_a, low_high),
            }
        by_catalog[str(catalog)] = block
    return {
        "unpaired": True,
        "why": "the two runs share no task x condition x catalog episode (different surfaces)",
        "treatment": pair_a[0],
        "comparator": pair_a[1],
        "bootstrap": {
            "iterations": int(report_a["bootstrap"]["iterations"]),
            "seed_a": seed_a,
            "seed_b": seed_b,
            "seed_b_rule": f'unpaired_seed(RUN_B seed): sha256("{UNPAIRED_SEED_LABEL}:<seed>")',
        },
        "by_catalog": by_catalog,
    }
