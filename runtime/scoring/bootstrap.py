"""The stratified task-cluster bootstrap, vectorized.

Layout. Tasks are grouped into cells (stratum x language), cells ordered by stratum (spec/strata.yaml
order) then language (spec/experiment.yaml order), tasks within a cell by task_id. Position ``p`` in
that order is the task's column.

Resampling. One ``numpy.random.Generator(PCG64(seed))``; for each cell in order, one call
``rng.integers(0, m, size=(B, m))`` draws, for every iteration, ``m`` of the cell's ``m`` tasks with
replacement. Side by side these give the index matrix ``I`` (B x n): row ``b`` is resample ``b``.
The same ``I`` serves every condition, catalog size and metric, so every difference is paired.

Aggregation. ``C[b, p]`` counts how often task ``p`` occurs in resample ``b``; for a matrix ``V``
(n x K) of per-task columns, ``C @ V`` is every column's resampled sum at once (sum over ``I[b]`` of
``V`` equals ``C[b] @ V``). Means divide by n (fixed: each cell keeps its size); ratio metrics divide
resampled sums (ratio of sums), giving NaN where the resampled denominator is 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from runtime.core.errors import SchemaRouterError
from runtime.run.scope import TaskRef

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class TaskLayout:
    """Tasks in bootstrap order and the [start, end) column range of each cell."""

    task_ids: tuple[str, ...]
    cells: tuple[tuple[str, str], ...]
    cell_ranges: tuple[tuple[int, int], ...]

    @property
    def n(self) -> int:
        return len(self.task_ids)

    def position(self) -> dict[str, int]:
        return {task_id: i for i, task_id in enumerate(self.task_ids)}


def task_layout(tasks: Sequence[TaskRef], *, strata: Sequence[str], languages: Sequence[str]) -> TaskLayout:
    """Group tasks into stratum x language cells in spec order."""
    stratum_rank = {s: i for i, s in enumerate(strata)}
    language_rank = {lang: i for i, lang in enumerate(languages)}
    for task in tasks:
        if task.stratum not in stratum_rank or task.language not in language_rank:
            raise SchemaRouterError(
                f"task {task.task_id}: stratum {task.stratum!r} / language {task.language!r} not in the spec"
            )
    ordered = sorted(tasks, key=lambda t: (stratum_rank[t.stratum], language_rank[t.language], t.task_id))
    cells: list[tuple[str, str]] = []
    ranges: list[tuple[int, int]] = []
    for i, task in enumerate(ordered):
        cell = (task.stratum, task.language)
        if not cells or cells[-1] != cell:
            cells.append(cell)
            ranges.append((i, i + 1))
        else:
            ranges[-1] = (ranges[-1][0], i + 1)
    return TaskLayout(tuple(t.task_id for t in ordered), tuple(cells), tuple(ranges))


def resample_indices(layout: TaskLayout, *, iterations: int, seed: int) -> IntArray:
    """The index matrix I (iterations x n): row b lists the task positions of resample b."""
    rng = np.random.Generator(np.random.PCG64(seed))
    blocks = [
        start + rng.integers(0, end - start, size=(iterations, end - start), dtype=np.int64)
        for start, end in layout.cell_ranges
    ]
    return np.concatenate(blocks, axis=1) if blocks else np.zeros((iterations, 0), dtype=np.int64)


def resample_counts(indices: IntArray, n: int) -> FloatArray:
    """C (iterations x n): how often each task occurs in each resample."""
    iterations = indices.shape[0]
    flat = (np.arange(iterations, dtype=np.int64)[:, None] * n + indices).ravel()
    return np.bincount(flat, minlength=iterations * n).reshape(iterations, n).astype(np.float64)


@dataclass(frozen=True)
class Sums:
    """Per-column sums over the original sample (``point``) and over every resample (``resampled``)."""

    point: FloatArray  # (K,)
    resampled: FloatArray  # (B, K)


def column_sums(counts: FloatArray, columns: FloatArray) -> Sums:
    """Sums of the per-task columns V (n x K): over the sample and over each resample (C @ V)."""
    return Sums(point=columns.sum(axis=0), resampled=counts @ columns)


def ratio(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    """numerator / denominator elementwise, NaN where the denominator is 0 (undefined, not 0 or 1)."""
    out = np.full(np.broadcast(numerator, denominator).shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


@dataclass(frozen=True)
class Interval:
    """A point estimate and its percentile interval; ``None`` where undefined."""

    point: float | None
    ci_low: float | None
    ci_high: float | None
    undefined_resamples: int


def percentile_interval(point: float, resampled: FloatArray, percentiles: tuple[float, float]) -> Interval:
    """Percentile interval over the resamples where the statistic is defined (NaN-aware).

    Undefined resamples (a ratio whose resampled denominator is 0) are left out and counted; if every
    resample is undefined the interval is ``None``. A NaN point estimate becomes ``None``.
    """
    defined = resampled[~np.isnan(resampled)]
    undefined = int(resampled.size - defined.size)
    point_value = None if np.isnan(point) else float(point)
    if defined.size == 0:
        return Interval(point_value, None, None, undefined)
    low, high = np.percentile(defined, percentiles, method="linear")
    return Interval(point_value, float(low), float(high), undefined)
