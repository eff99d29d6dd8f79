"""Point estimates and 95% intervals for every metric x condition x catalog and every paired difference.

Every statistic is rounded to 12 significant digits (``SIGNIFICANT_DIGITS``) before it is reported or
compared with a gate threshold. float64 carries about 16; the rounding removes only last-bit noise
(summation order in a BLAS kernel, 49/50 - 50/50 coming out as -0.020000000000000018), so results are
byte-identical across machines and a value that sits exactly on a threshold is compared as itself.

Differences (treatment - comparator) of mean and count metrics are computed from per-task differences
(mean of differences equals difference of means, and integer per-task values then give correctly
rounded quotients); differences of ratio metrics are differences of the two ratios of sums, per resample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from runtime.scoring.bootstrap import (
    FloatArray,
    Interval,
    TaskLayout,
    column_sums,
    percentile_interval,
    ratio,
)
from runtime.scoring.per_task import Row
from runtime.spec_model.metrics import MetricSpec

SIGNIFICANT_DIGITS = 12


@dataclass(frozen=True)
class Estimates:
    """metrics[condition][catalog][metric] and differences[catalog][metric], each an Interval."""

    metrics: dict[str, dict[int, dict[str, Interval]]] = field(default_factory=dict)
    differences: dict[int, dict[str, Interval]] = field(default_factory=dict)


def round_sig(value: float | None) -> float | None:
    if value is None:
        return None
    return float(f"{value:.{SIGNIFICANT_DIGITS}g}") + 0.0  # + 0.0 turns -0.0 into 0.0


def estimate(
    rows: Sequence[Row],
    *,
    layout: TaskLayout,
    counts: FloatArray,
    metrics: Sequence[MetricSpec],
    conditions: Sequence[str],
    catalogs: Sequence[int],
    pair: tuple[str, str] | None,
    percentiles: tuple[float, float],
    differences_only: bool = False,
) -> Estimates:
    """Intervals for ``metrics`` (each where it applies) and, if ``pair`` = (treatment, comparator)
    are both present, for the paired difference of every metric that applies to both.

    ``differences_only``: leave ``metrics`` empty and compute the differences alone (the preflight's
    simulated surfaces, whose statistics read only differences). The sums are the same either way, so
    every difference is bit for bit the one a full call gives."""
    table = _Columns(rows, layout)
    plan: list[tuple[str, int, MetricSpec]] = [
        (c, k, m) for k in catalogs for c in conditions for m in metrics if c in m.applies_to
    ]
    for condition, catalog, metric in plan:
        for component in metric.components():
            table.add((condition, catalog, component))
    paired = pair if pair is not None and all(c in conditions for c in pair) else None
    diff_plan = [] if paired is None else _difference_plan(table, paired, metrics, catalogs)
    sums = column_sums(counts, table.matrix())
    stat = _Statistic(sums.point, sums.resampled, table.index, layout.n)

    out = Estimates()
    for condition, catalog, metric in [] if differences_only else plan:
        point, resampled = stat.of(condition, catalog, metric)
        out.metrics.setdefault(condition, {}).setdefault(catalog, {})[metric.id] = _rounded(
            percentile_interval(point, resampled, percentiles)
        )
    for catalog, metric in diff_plan:
        assert paired is not None
        point, resampled = _difference(stat, paired, catalog, metric)
        out.differences.setdefault(catalog, {})[metric.id] = _rounded(
            percentile_interval(point, resampled, percentiles)
        )
    return out


def _difference_plan(
    table: _Columns, pair: tuple[str, str], metrics: Sequence[MetricSpec], catalogs: Sequence[int]
) -> list[tuple[int, MetricSpec]]:
    """The (catalog, metric) differences to estimate: every metric that applies to both conditions.
    A mean or count difference gets its own per-task column (treatment - comparator)."""
    treatment, comparator = pair
    plan: list[tuple[int, MetricSpec]] = []
    for catalog in catalogs:
        for metric in metrics:
            if treatment in metric.applies_to and comparator in metric.applies_to:
                plan.append((catalog, metric))
                if metric.aggregate != "ratio":
                    table.add_difference((treatment, catalog, metric.id), (comparator, catalog, metric.id))
    return plan


def _difference(
    stat: _Statistic, pair: tuple[str, str], catalog: int, metric: MetricSpec
) -> tuple[float, FloatArray]:
    """A ratio's difference is the difference of the two ratios; any other metric's is the statistic
    of its difference column."""
    if metric.aggregate == "ratio":
        t_point, t_res = stat.of(pair[0], catalog, metric)
        c_point, c_res = stat.of(pair[1], catalog, metric)
        return t_point - c_point, t_res - c_res
    return stat.scaled(("diff", pair[0], pair[1], catalog, metric.id), metric)


class _Columns:
    """Per-task columns in layout order, registered by name."""

    def __init__(self, rows: Sequence[Row], layout: TaskLayout) -> None:
        self._position = layout.position()
        self._n = layout.n
        self._rows: dict[tuple[str, int], list[Row]] = {}
        for row in rows:
            self._rows.setdefault((row["condition"], row["catalog"]), []).append(row)
        self.index: dict[tuple[object, ...], int] = {}
        self._columns: list[FloatArray] = []
        self._by_name: dict[tuple[object, ...], FloatArray] = {}

    def add(self, name: tuple[str, int, str]) -> None:
        condition, catalog, component = name
        column = np.zeros(self._n)
        for row in self._rows.get((condition, catalog), []):
            column[self._position[row["task_id"]]] = row[component]
        self._register(name, column)

    def add_difference(self, treatment: tuple[str, int, str], comparator: tuple[str, int, str]) -> None:
        name = ("diff", treatment[0], comparator[0], treatment[1], treatment[2])
        self._register(name, self._by_name[treatment] - self._by_name[comparator])

    def _register(self, name: tuple[object, ...], column: FloatArray) -> None:
        self.index[name] = len(self._columns)
        self._columns.append(column)
        self._by_name[name] = column

    def matrix(self) -> FloatArray:
        return np.column_stack(self._columns) if self._columns else np.zeros((self._n, 0))


class _Statistic:
    """Turns column sums into a metric's point value and its resampled distribution."""

    def __init__(
        self, point: FloatArray, resampled: FloatArray, index: dict[tuple[object, ...], int], n: int
    ):
        self._point, self._resampled, self._index, self._n = point, resampled, index, n

    def of(self, condition: str, catalog: int, metric: MetricSpec) -> tuple[float, FloatArray]:
        if metric.aggregate == "ratio":
            num, den = (self._index[(condition, catalog, c)] for c in metric.components())
            point = ratio(self._point[num : num + 1], self._point[den : den + 1])[0]
            return float(point), ratio(self._resampled[:, num], self._resampled[:, den])
        return self.scaled((condition, catalog, metric.id), metric)

    def scaled(self, name: tuple[object, ...], metric: MetricSpec) -> tuple[float, FloatArray]:
        j = self._index[name]
        divisor = float(self._n) if metric.aggregate == "mean" else 1.0
        return float(self._point[j] / divisor), self._resampled[:, j] / divisor


def _rounded(interval: Interval) -> Interval:
    return Interval(
        point=round_sig(interval.point),
        ci_low=round_sig(interval.ci_low),
        ci_high=round_sig(interval.ci_high),
        undefined_resamples=interval.undefined_resamples,
    )
