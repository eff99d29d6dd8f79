"""The vectorized bootstrap against a slow, loop-by-loop reference on small data; pairing; ratio of sums;
undefined ratios; determinism of the index matrix."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest

from runtime.run.scope import TaskRef
from runtime.scoring.bootstrap import resample_counts, resample_indices, task_layout
from runtime.scoring.estimates import Estimates, estimate
from runtime.spec_model.metrics import MetricSpec

CONDITIONS = ("T", "C")
CATALOGS = (1, 2)
PERCENTILES = (2.5, 97.5)
MEAN = MetricSpec(
    level="task",
    definition="d",
    id="m",
    title="m",
    unit="x",
    aggregate="mean",
    applies_to=CONDITIONS,
    better="higher",
)
COUNT = MetricSpec(
    level="task",
    definition="d",
    id="k",
    title="k",
    unit="x",
    aggregate="count",
    applies_to=CONDITIONS,
    better="lower",
)
RATIO = MetricSpec(
    level="task",
    definition="d",
    id="r",
    title="r",
    unit="x",
    aggregate="ratio",
    numerator="hits",
    denominator="points",
    applies_to=CONDITIONS,
    better="higher",
)
METRICS = (MEAN, COUNT, RATIO)


def _tasks(cells: list[tuple[str, str, int]]) -> list[TaskRef]:
    return [
        TaskRef(task_id=f"{s}-{lang}-{i}", stratum=s, language=lang) for s, lang, n in cells for i in range(n)
    ]


def _rows(tasks: list[TaskRef], seed: int = 7, zero_den: set[str] = frozenset()) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for catalog in CATALOGS:
        for condition in CONDITIONS:
            for t in tasks:
                points = 0 if t.task_id in zero_den else rng.randint(1, 4)
                rows.append(
                    {
                        "task_id": t.task_id,
                        "condition": condition,
                        "catalog": catalog,
                        "stratum": t.stratum,
                        "language": t.language,
                        "m": rng.random(),
                        "k": rng.randint(0, 3),
                        "hits": rng.randint(0, points),
                        "points": points,
                    }
                )
    return rows


def _run(
    rows: list[dict], tasks: list[TaskRef], iterations: int, seed: int = 11, differences_only: bool = False
) -> tuple[Estimates, Any, Any]:
    strata = sorted({t.stratum for t in tasks})
    languages = sorted({t.language for t in tasks})
    layout = task_layout(tasks, strata=strata, languages=languages)
    indices = resample_indices(layout, iterations=iterations, seed=seed)
    est = estimate(
        rows,
        layout=layout,
        counts=resample_counts(indices, layout.n),
        metrics=METRICS,
        conditions=CONDITIONS,
        catalogs=CATALOGS,
        pair=("T", "C"),
        percentiles=PERCENTILES,
        differences_only=differences_only,
    )
    return est, indices, layout


def _slow_stat(rows: list[dict], condition: str, catalog: int, metric: MetricSpec, ids: list[str]) -> float:
    by_id = {r["task_id"]: r for r in rows if r["condition"] == condition and r["catalog"] == catalog}
    picked = [by_id[i] for i in ids]
    if metric.aggregate == "mean":
        return sum(r["m"] for r in picked) / len(picked)
    if metric.aggregate == "count":
        return float(sum(r["k"] for r in picked))
    den = sum(r["points"] for r in picked)
    return sum(r["hits"] for r in picked) / den if den else math.nan


def _slow_interval(samples: list[float]) -> tuple[float | None, float | None, int]:
    defined = [s for s in samples if not math.isnan(s)]
    if not defined:
        return None, None, len(samples)
    low, high = np.percentile(defined, PERCENTILES, method="linear")
    return float(low), float(high), len(samples) - len(defined)


def test_index_matrix_resamples_within_cells_only_and_is_reproducible() -> None:
    tasks = _tasks([("a", "x", 3), ("a", "y", 1), ("b", "x", 4)])
    _, indices, layout = _run(_rows(tasks), tasks, iterations=500)
    assert indices.shape == (500, 8)
    for start, end in layout.cell_ranges:
        block = indices[:, start:end]
        assert block.min() >= start and block.max() < end
    assert (indices[:, 3] == 3).all()  # a one-task cell always resamples itself
    again = resample_indices(layout, iterations=500, seed=11)
    assert np.array_equal(indices, again)
    assert not np.array_equal(indices, resample_indices(layout, iterations=500, seed=12))


def test_vectorized_bootstrap_equals_a_slow_loop_over_the_index_matrix() -> None:
    tasks = _tasks([("a", "x", 3), ("a", "y", 2), ("b", "x", 4), ("b", "y", 1)])
    rows = _rows(tasks, zero_den={"a-y-0", "a-y-1", "b-y-0"})
    est, indices, layout = _run(rows, tasks, iterations=400)
    resamples = [[layout.task_ids[p] for p in row] for row in indices]
    for catalog in CATALOGS:
        for metric in METRICS:
            per_condition = {}
            for condition in CONDITIONS:
                samples = [_slow_stat(rows, condition, catalog, metric, ids) for ids in resamples]
                per_condition[condition] = samples
                got = est.metrics[condition][catalog][metric.id]
                point = _slow_stat(rows, condition, catalog, metric, list(layout.task_ids))
                low, high, undefined = _slow_interval(samples)
                assert got.point == pytest.approx(point, rel=1e-10)
                assert (got.ci_low, got.ci_high) == (
                    pytest.approx(low, rel=1e-10),
                    pytest.approx(high, rel=1e-10),
                )
                assert got.undefined_resamples == undefined
            diffs = [t - c for t, c in zip(per_condition["T"], per_condition["C"], strict=True)]
            low, high, undefined = _slow_interval(diffs)
            got = est.differences[catalog][metric.id]
            assert (got.ci_low, got.ci_high) == (
                pytest.approx(low, rel=1e-9, abs=1e-12),
                pytest.approx(high, rel=1e-9),
            )
            assert got.undefined_resamples == undefined


def test_differences_only_gives_the_same_differences_bit_for_bit_and_no_condition_intervals() -> None:
    """What the preflight's simulated surfaces ask for: the differences alone, exactly as a full call."""
    tasks = _tasks([("a", "x", 3), ("a", "y", 2), ("b", "x", 4), ("b", "y", 1)])
    rows = _rows(tasks, zero_den={"a-y-0", "a-y-1", "b-y-0"})
    full, _, _ = _run(rows, tasks, iterations=400)
    alone, _, _ = _run(rows, tasks, iterations=400, differences_only=True)
    assert alone.metrics == {}
    assert full.metrics and alone.differences == full.differences
    assert {m.id for m in METRICS} == set(alone.differences[CATALOGS[0]])


def test_differences_are_paired_by_one_resample() -> None:
    """Identical treatment and comparator values: each condition's own interval is wide, the paired
    difference's is exactly [0, 0]. Unpaired resampling would give a wide difference interval."""
    tasks = _tasks([("a", "x", 6), ("b", "x", 6)])
    rows = [r for r in _rows(tasks) if r["condition"] == "T"]
    rows += [{**r, "condition": "C"} for r in rows]
    est, _, _ = _run(rows, tasks, iterations=1000)
    own = est.metrics["T"][1]["m"]
    assert own.ci_high - own.ci_low > 0.1
    for metric in ("m", "k", "r"):
        diff = est.differences[1][metric]
        assert (diff.point, diff.ci_low, diff.ci_high) == (0.0, 0.0, 0.0)


def test_ratio_metrics_are_ratios_of_sums_not_means_of_ratios() -> None:
    tasks = _tasks([("a", "x", 2)])
    rows = []
    for condition in CONDITIONS:
        for t, (hits, points) in zip(tasks, [(1, 1), (0, 9)], strict=True):
            rows.append(
                {"task_id": t.task_id, "condition": condition, "catalog": 1, "stratum": "a", "language": "x"}
                | {"m": 0.0, "k": 0, "hits": hits, "points": points}
            )
    layout = task_layout(tasks, strata=["a"], languages=["x"])
    counts = resample_counts(resample_indices(layout, iterations=50, seed=1), layout.n)
    est = estimate(
        rows,
        layout=layout,
        counts=counts,
        metrics=METRICS,
        conditions=CONDITIONS,
        catalogs=(1,),
        pair=None,
        percentiles=PERCENTILES,
    )
    assert est.metrics["T"][1]["r"].point == 0.1  # (1 + 0) / (1 + 9); the mean of ratios would be 0.55


def test_an_all_zero_denominator_is_undefined_not_zero() -> None:
    tasks = _tasks([("a", "x", 3)])
    rows = _rows(tasks, zero_den={t.task_id for t in tasks})
    est, _, _ = _run(rows, tasks, iterations=100)
    r = est.metrics["T"][1]["r"]
    assert (r.point, r.ci_low, r.ci_high, r.undefined_resamples) == (None, None, None, 100)


def test_float_noise_is_rounded_away() -> None:
    """49/50 - 50/50 is -0.020000000000000018 in floats; the reported difference is -0.02 exactly."""
    tasks = _tasks([(f"s{i}", "x", 1) for i in range(50)])
    rows = []
    for condition in CONDITIONS:
        for i, t in enumerate(tasks):
            m = 0.0 if (condition == "T" and i == 0) else 1.0
            rows.append(
                {
                    "task_id": t.task_id,
                    "condition": condition,
                    "catalog": 1,
                    "stratum": t.stratum,
                    "language": "x",
                }
                | {"m": m, "k": 0, "hits": 1, "points": 1}
            )
    est, _, _ = _run([r for r in rows], tasks, iterations=10)
    assert 49 / 50 - 50 / 50 != -0.02
    assert est.differences[1]["m"].ci_low == -0.02


def test_resamples_with_a_zero_denominator_are_left_out_and_counted() -> None:
    tasks = _tasks([("a", "x", 3)])
    rows = _rows(tasks, zero_den={"a-x-0", "a-x-1"})
    for r in rows:
        if r["task_id"] == "a-x-2":
            r["hits"], r["points"] = 1, 2
    est, indices, layout = _run(rows, tasks, iterations=300)
    samples = [_slow_stat(rows, "T", 1, RATIO, [layout.task_ids[p] for p in row]) for row in indices]
    low, high, undefined = _slow_interval(samples)
    got = est.metrics["T"][1]["r"]
    assert 50 < undefined < 150  # about (2/3)^3 of 300
    assert (got.point, got.ci_low, got.ci_high, got.undefined_resamples) == (0.5, low, high, undefined)
