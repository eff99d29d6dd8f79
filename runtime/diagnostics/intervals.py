"""Ratio-of-sums intervals for diagnostic breakdowns, from the scoring's own resample counts, and flags.

A breakdown (Recall@5 after an error, in stratum S3, at catalog 500) is a ratio of per-task sums over
the tasks it covers. Its interval uses the experiment's bootstrap as scoring drew it: the same
``counts`` matrix (B x n) and percentiles, so it is paired with every interval of report.json.

Each carries its flag (``flags.interval_flag``), computed from the cells that contribute to its
denominator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from runtime.diagnostics.flags import interval_flag
from runtime.scoring.bootstrap import FloatArray, TaskLayout, percentile_interval, ratio
from runtime.scoring.estimates import round_sig


@dataclass
class RatioColumns:
    """Per-task numerator and denominator columns of many breakdowns, summed in one product."""

    layout: TaskLayout

    def __post_init__(self) -> None:
        self._position = self.layout.position()
        self._cell_of = np.zeros(self.layout.n, dtype=np.int64)
        for c, (start, end) in enumerate(self.layout.cell_ranges):
            self._cell_of[start:end] = c
        self.names: list[str] = []
        self._num: list[FloatArray] = []
        self._den: list[FloatArray] = []

    def add(self, name: str, values: Sequence[tuple[str, float, float]]) -> None:
        """``values``: (task_id, numerator, denominator) per task; tasks absent count 0 / 0."""
        num, den = np.zeros(self.layout.n), np.zeros(self.layout.n)
        for task_id, n, d in values:
            p = self._position[task_id]
            num[p] += n
            den[p] += d
        self.names.append(name)
        self._num.append(num)
        self._den.append(den)

    def intervals(self, counts: FloatArray, percentiles: tuple[float, float]) -> dict[str, dict[str, object]]:
        """name -> {point, ci_low, ci_high, numerator, denominator, undefined_resamples, flag}."""
        if not self.names:
            return {}
        num, den = np.column_stack(self._num), np.column_stack(self._den)
        res_num, res_den = counts @ num, counts @ den
        iterations = counts.shape[0]
        out: dict[str, dict[str, object]] = {}
        for j, name in enumerate(self.names):
            point = ratio(num[:, j].sum(keepdims=True), den[:, j].sum(keepdims=True))[0]
            interval = percentile_interval(float(point), ratio(res_num[:, j], res_den[:, j]), percentiles)
            contributing = np.bincount(self._cell_of[den[:, j] > 0], minlength=len(self.layout.cells))
            out[name] = {
                "point": round_sig(interval.point),
                "ci_low": round_sig(interval.ci_low),
                "ci_high": round_sig(interval.ci_high),
                "numerator": int(num[:, j].sum()),
                "denominator": int(den[:, j].sum()),
                "undefined_resamples": interval.undefined_resamples,
                "flag": interval_flag(
                    interval.point,
                    interval.ci_low,
                    interval.ci_high,
                    undefined=interval.undefined_resamples,
                    iterations=iterations,
                    max_tasks_per_cell=int(contributing.max()) if contributing.size else 0,
                ),
            }
        return out
