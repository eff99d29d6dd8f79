"""What a gate can reach before the freeze: protocol bounds, minimum detectable differences, verdicts.

``sr preflight`` (``schemarouter/application/preflight.py``) measures a pilot on the development
surface and hands this module the pilot's per-task rows and, per criterion and catalog size, the upper
bound the protocol sets on the criterion's compared quantity. This module decides, per criterion:

* ``unreachable``: the bound itself fails the threshold (``bound 0.62 < 0.97``): no retriever the
  protocol allows can pass it, however well it ranks;
* ``underpowered`` (difference criteria only): the minimum detectable difference (MDD) lies beyond
  what the bound leaves: even the best treatment the protocol allows passes the gate's statistic in
  fewer than 80% of simulated surfaces of the experiment's size;
* ``reachable`` otherwise.

The MDD, by simulation from the pilot outcomes, with the gate's own bootstrap:

1. centre the treatment: shift its per-task outcomes so that the pilot's paired difference is 0 (a
   mean metric: value - d; a ratio metric: numerator - d * denominator, which moves the ratio of sums
   by exactly -d);
2. draw ``SIMULATIONS`` surfaces of the experiment's shape: in every stratum x language cell of the
   pilot, ``tasks_per_cell`` tasks with replacement (one ``numpy.random.Generator(PCG64)`` seeded
   with the named seed ``preflight.simulation`` = ``SIMULATION_SEED``, cells in layout order);
3. on each, compute the criterion's statistic exactly as the gate does (``estimates.estimate`` with the
   experiment's bootstrap: iterations, seed, percentiles; then the registered statistic);
4. shifting the treatment by delta moves every resampled difference, and so the statistic, by exactly
   delta; the MDD is the smallest delta (for ``<``/``<=`` criteria: the largest) at which the statistic
   plus delta meets the threshold in at least ``POWER`` of the simulated surfaces, read off the
   simulated statistics' order statistic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from runtime.core.progress import Progress, counted
from runtime.scoring.bootstrap import TaskLayout, resample_counts, resample_indices
from runtime.scoring.estimates import Estimates, estimate, round_sig
from runtime.scoring.per_task import Row
from runtime.scoring.spec import ScoringSpec
from runtime.scoring.statistics import RegisteredStatistic, StatisticInput, registered_statistics
from runtime.scoring.success_gate import OPERATORS
from runtime.spec_model.gates import GateCriterionSpec
from runtime.spec_model.metrics import MetricSpec

SIMULATION_SEED = 20261202  # named seed preflight.simulation
SIMULATIONS = 200
POWER = 0.8

Verdict = Literal["reachable", "unreachable", "underpowered"]
VERDICT_ORDER: tuple[Verdict, ...] = ("reachable", "underpowered", "unreachable")
NEGATION = {">=": "<", ">": "<=", "<=": ">", "<": ">=", "==": "!="}


@dataclass(frozen=True)
class Bound:
    """The protocol's bound on a criterion's compared quantity (treatment value or difference)."""

    value: float
    basis: str  # how it was obtained, in words


@dataclass(frozen=True)
class Feasibility:
    """One criterion at one catalog size."""

    code: str
    catalog: int
    metric: str
    compare: str
    statistic: str
    operator: str
    threshold: float
    point: float | None
    ci_low: float | None
    ci_high: float | None
    bound: Bound | None
    mdd: float | None  # the delta the statistic needs (difference criteria)
    verdict: Verdict
    detail: str  # "bound 0.62 < 0.97", "MDD 0.31 > room 0.12", ""

    def verdict_text(self) -> str:
        return self.verdict if not self.detail else f"{self.verdict} ({self.detail})"


def verdict(criterion: GateCriterionSpec, bound: Bound | None, mdd: float | None) -> tuple[Verdict, str]:
    """The verdict of one criterion at one catalog size from its bound and MDD (see module docs)."""
    op, threshold = criterion.operator, criterion.threshold
    if bound is not None and not OPERATORS[op](bound.value, threshold):
        return "unreachable", f"bound {_num(bound.value)} {NEGATION[op]} {_num(threshold)}"
    if criterion.compare == "difference" and mdd is not None and bound is not None:
        lower = op in (">=", ">")
        if (lower and mdd > bound.value) or (not lower and mdd < bound.value):
            side = ">" if lower else "<"
            return "underpowered", f"MDD {_num(mdd)} {side} bound {_num(bound.value)}"
    if criterion.compare == "difference" and mdd is None and bound is not None:
        return "underpowered", "no simulated surface defines the statistic"
    return "reachable", ""


def worst(verdicts: Sequence[Verdict]) -> Verdict:
    """A criterion's verdict over its catalog sizes: the worst of them."""
    return max(verdicts, key=VERDICT_ORDER.index, default="reachable")


def _num(value: float) -> str:
    return f"{value:.4g}"


def assess(
    rows: Sequence[Row],
    *,
    spec: ScoringSpec,
    layout: TaskLayout,
    intervals: Mapping[tuple[str, int], tuple[float | None, float | None, float | None]],
    bounds: Mapping[tuple[str, int], Bound],
    catalogs: Sequence[int],
    simulations: int = SIMULATIONS,
    seed: int = SIMULATION_SEED,
    progress: Progress | None = None,
) -> list[Feasibility]:
    """Every gate criterion at every catalog size: estimate (``intervals``: point, low, high by
    criterion code and catalog), bound, MDD and verdict."""
    differences = [c for c in spec.gate.criteria if c.compare == "difference"]
    simulated = simulated_statistics(
        rows,
        spec=spec,
        layout=layout,
        criteria=differences,
        catalogs=catalogs,
        simulations=simulations,
        seed=seed,
        progress=progress,
    )
    out: list[Feasibility] = []
    for criterion in spec.gate.criteria:
        for catalog in catalogs:
            values = simulated.get((criterion.code, catalog))
            mdd = None if values is None else _needed_shift(values, simulations, criterion)
            interval = intervals.get((criterion.code, catalog), (None, None, None))
            out.append(_feasibility(criterion, catalog, bounds.get((criterion.code, catalog)), mdd, interval))
    return out


def _feasibility(
    criterion: GateCriterionSpec,
    catalog: int,
    bound: Bound | None,
    mdd: float | None,
    interval: tuple[float | None, float | None, float | None],
) -> Feasibility:
    """One criterion at one catalog size: its estimate, bound, MDD and verdict."""
    point, low, high = interval
    found, detail = verdict(criterion, bound, mdd)
    return Feasibility(
        code=criterion.code,
        catalog=catalog,
        metric=criterion.metric,
        compare=criterion.compare,
        statistic=criterion.statistic,
        operator=criterion.operator,
        threshold=criterion.threshold,
        point=point,
        ci_low=low,
        ci_high=high,
        bound=bound,
        mdd=mdd,
        verdict=found,
        detail=detail,
    )


def minimum_detectable_difference(
    rows: Sequence[Row],
    *,
    spec: ScoringSpec,
    layout: TaskLayout,
    criterion: GateCriterionSpec,
    catalog: int,
    simulations: int = SIMULATIONS,
    seed: int = SIMULATION_SEED,
) -> float | None:
    """The delta at which the criterion's statistic passes in ``POWER`` of the simulated surfaces
    (None when the statistic is undefined on too many of them)."""
    values = simulated_statistics(
        rows,
        spec=spec,
        layout=layout,
        criteria=[criterion],
        catalogs=[catalog],
        simulations=simulations,
        seed=seed,
    )[(criterion.code, catalog)]
    return _needed_shift(values, simulations, criterion)


def simulated_statistics(
    rows: Sequence[Row],
    *,
    spec: ScoringSpec,
    layout: TaskLayout,
    criteria: Sequence[GateCriterionSpec],
    catalogs: Sequence[int],
    simulations: int = SIMULATIONS,
    seed: int = SIMULATION_SEED,
    progress: Progress | None = None,
) -> dict[tuple[str, int], list[float]]:
    """Each difference criterion's statistic (treatment centred) on every simulated surface where it
    is defined, by (code, catalog): one ``estimate`` per simulated surface for all of them
    (``progress``: each simulated surface)."""
    if not criteria:
        return {}
    treatment, comparator = spec.gate.treatment, spec.gate.comparator
    metrics = {m.id: m for m in spec.metrics}
    used = [metrics[m] for m in dict.fromkeys(c.metric for c in criteria)]
    centred = _centred(
        _pair_rows(rows, (treatment, comparator), catalogs), used, treatment, comparator, catalogs
    )
    sim_layout, draws = simulated_surfaces(layout, spec.tasks_per_cell, simulations, seed)
    counts = resample_counts(
        resample_indices(sim_layout, iterations=spec.bootstrap.iterations, seed=spec.bootstrap.seed),
        sim_layout.n,
    )
    statistics = registered_statistics()
    out: dict[tuple[str, int], list[float]] = {(c.code, k): [] for c in criteria for k in catalogs}
    for draw in counted(progress, "simulated surfaces (MDD)", draws, unit="surfaces"):
        sim_rows = [
            {**centred[(layout.task_ids[source], condition, catalog)], "task_id": sim_layout.task_ids[p]}
            for catalog in catalogs
            for condition in (treatment, comparator)
            for p, source in enumerate(draw)
        ]
        found = estimate(
            sim_rows,
            layout=sim_layout,
            counts=counts,
            metrics=used,
            conditions=[treatment, comparator],
            catalogs=list(catalogs),
            pair=(treatment, comparator),
            percentiles=spec.bootstrap.percentiles(),
            differences_only=True,
        )
        for c in criteria:
            _record_statistic(out, c, found, sim_rows, metrics[c.metric], statistics[c.statistic], catalogs)
    return out


def _pair_rows(
    rows: Sequence[Row], pair: tuple[str, str], catalogs: Sequence[int]
) -> dict[tuple[str, str, int], Row]:
    """The pilot's rows of the two compared conditions at ``catalogs``, by (task, condition, catalog)."""
    return {
        (r["task_id"], r["condition"], r["catalog"]): r
        for r in rows
        if r["catalog"] in catalogs and r["condition"] in pair
    }


def _record_statistic(
    out: dict[tuple[str, int], list[float]],
    criterion: GateCriterionSpec,
    found: Estimates,
    sim_rows: Sequence[Row],
    metric: MetricSpec,
    statistic: RegisteredStatistic,
    catalogs: Sequence[int],
) -> None:
    """Append the criterion's statistic on one simulated surface at each catalog where it is defined."""
    for k in catalogs:
        interval = found.differences[k][criterion.metric]
        value, _ = statistic.fn(StatisticInput(criterion, metric, k, interval, sim_rows))
        if value is not None:
            out[(criterion.code, k)].append(value)


def _needed_shift(values: Sequence[float], simulations: int, criterion: GateCriterionSpec) -> float | None:
    """The delta with ``value + delta OP threshold`` in at least POWER of ``simulations`` (undefined
    statistics never pass)."""
    need = math.ceil(POWER * simulations)
    if len(values) < need:
        return None
    ordered = sorted(values)
    if criterion.operator in (">=", ">"):
        # the need-th largest value must reach the threshold
        return round_sig(criterion.threshold - ordered[len(ordered) - need])
    return round_sig(criterion.threshold - ordered[need - 1])


def _centred(
    pilot: Mapping[tuple[str, str, int], Row],
    metrics: Sequence[MetricSpec],
    treatment: str,
    comparator: str,
    catalogs: Sequence[int],
) -> dict[tuple[str, str, int], Row]:
    """The pilot's rows with the treatment shifted, metric by metric and catalog by catalog, so that
    every paired difference is 0 (means: value - d; ratios: numerator - d * denominator)."""
    out = dict(pilot)
    for catalog in catalogs:
        tasks = sorted({task for task, _, k in pilot if k == catalog})
        for metric in metrics:
            key = metric.components()
            num, den = key if metric.aggregate == "ratio" else (key[0], None)

            def total(condition: str, column: str, at: int = catalog, ts: list[str] = tasks) -> float:
                return sum(float(pilot[(t, condition, at)][column] or 0) for t in ts)

            if den is None:
                shift = (total(treatment, num) - total(comparator, num)) / max(len(tasks), 1)
            else:
                shift = _ratio(total(treatment, num), total(treatment, den)) - _ratio(
                    total(comparator, num), total(comparator, den)
                )
            for t in tasks:
                row = out[(t, treatment, catalog)]
                weight = 1.0 if den is None else float(row[den] or 0)
                out[(t, treatment, catalog)] = {**row, num: float(row[num] or 0) - shift * weight}
    return out


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def simulated_surfaces(
    layout: TaskLayout, tasks_per_cell: int, simulations: int, seed: int
) -> tuple[TaskLayout, list[list[int]]]:
    """The simulated surfaces' layout (the pilot's cells, ``tasks_per_cell`` tasks each) and, for each
    simulation, the pilot position that fills every position of it (drawn with replacement per cell)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    ids: list[str] = []
    ranges: list[tuple[int, int]] = []
    blocks = []
    for (stratum, language), (start, end) in zip(layout.cells, layout.cell_ranges, strict=True):
        first = len(ids)
        ids += [f"sim:{stratum}:{language}:{j}" for j in range(tasks_per_cell)]
        ranges.append((first, len(ids)))
        blocks.append(start + rng.integers(0, end - start, size=(simulations, tasks_per_cell)))
    sim_layout = TaskLayout(tuple(ids), layout.cells, tuple(ranges))
    draws = np.concatenate(blocks, axis=1) if blocks else np.zeros((simulations, 0), dtype=np.int64)
    return sim_layout, [[int(x) for x in row] for row in draws]
