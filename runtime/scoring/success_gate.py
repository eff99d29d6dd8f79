"""The preregistered gate: G1-G6 of spec/gates.yaml at every catalog size.

Per criterion and catalog size, ``value`` is the statistic the criterion names, compared with the
threshold by its operator:

* ``difference``: the paired bootstrap interval of (treatment - comparator); ``ci_low`` / ``ci_high``
  / ``point`` of it.
* ``treatment``: the treatment's own interval.
* ``all_conditions``: an exact value over every episode of every condition in scope at that size, no
  interval: ``exact_count`` sums the metric, ``exact_ratio`` divides the summed numerator by the summed
  denominator. Integer sums are exact, so "== 0" and "== 1.0" mean what they say.

A statistic that is undefined (e.g. no episode had an initial miss, so recovery has no denominator)
cannot meet any threshold: the criterion fails and says why. The verdict is PASS only if every criterion
passes at every catalog size; NOT_EVALUABLE if the scope lacks the treatment or the comparator.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from runtime.core.registry import Registry
from runtime.scoring.bootstrap import Interval
from runtime.scoring.estimates import Estimates
from runtime.scoring.per_task import Row
from runtime.scoring.statistics import StatisticInput, registered_statistics
from runtime.spec_model.gates import GateCriterionSpec, GateSpec
from runtime.spec_model.metrics import MetricSpec

Verdict = Literal["PASS", "FAIL", "NOT_EVALUABLE"]

# The gate operators by the vocabulary's word (runtime/spec_model/vocabulary.py): a closed kind, since
# the spec language itself lists them.
OPERATORS: Registry[Callable[[float, float], bool]] = Registry("gate operator", group=None)
for _word, _fn in (
    (">=", operator.ge),
    (">", operator.gt),
    ("<=", operator.le),
    ("<", operator.lt),
    ("==", operator.eq),
):
    OPERATORS.add(_word, _fn, module=__name__)


@dataclass(frozen=True)
class CriterionResult:
    """One criterion at one catalog size."""

    code: str
    title: str
    metric: str
    compare: str
    statistic: str
    operator: str
    threshold: float
    point: float | None
    ci_low: float | None
    ci_high: float | None
    value: float | None
    passed: bool | None
    note: str | None


@dataclass(frozen=True)
class GateResult:
    verdict: Verdict
    treatment: str
    comparator: str
    by_catalog: dict[int, list[CriterionResult]]


def evaluate_gate(
    gate: GateSpec,
    *,
    estimates: Estimates,
    rows: Sequence[Row],
    metrics: dict[str, MetricSpec],
    conditions: Sequence[str],
    catalogs: Sequence[int],
) -> GateResult:
    by_catalog = {
        catalog: [
            _criterion(c, catalog, gate, estimates, rows, metrics[c.metric], conditions)
            for c in gate.criteria
        ]
        for catalog in catalogs
    }
    results = [r for rs in by_catalog.values() for r in rs]
    verdict: Verdict
    if any(r.passed is None for r in results):
        verdict = "NOT_EVALUABLE"
    elif all(r.passed for r in results):
        verdict = "PASS"
    else:
        verdict = "FAIL"
    return GateResult(
        verdict=verdict, treatment=gate.treatment, comparator=gate.comparator, by_catalog=by_catalog
    )


def _criterion(
    c: GateCriterionSpec,
    catalog: int,
    gate: GateSpec,
    estimates: Estimates,
    rows: Sequence[Row],
    metric: MetricSpec,
    conditions: Sequence[str],
) -> CriterionResult:
    needed = {"difference": [gate.treatment, gate.comparator], "treatment": [gate.treatment]}.get(
        c.compare, []
    )
    missing = [cond for cond in needed if cond not in conditions]
    if missing:
        return _result(c, None, None, f"not evaluable: {', '.join(missing)} not in the run's scope")
    registered = registered_statistics()[c.statistic]
    if c.compare == "all_conditions":
        value, note = registered.fn(StatisticInput(c, metric, catalog, None, rows))
        interval = Interval(value, None, None, 0)
    else:
        interval = (
            estimates.differences[catalog][c.metric]
            if c.compare == "difference"
            else estimates.metrics[gate.treatment][catalog][c.metric]
        )
        value, note = registered.fn(StatisticInput(c, metric, catalog, interval, rows))
    if value is None:
        return _result(c, interval, None, note, passed=False)
    return _result(c, interval, value, note, passed=OPERATORS[c.operator](value, c.threshold))


def _result(
    c: GateCriterionSpec,
    interval: Interval | None,
    value: float | None,
    note: str | None,
    *,
    passed: bool | None = None,
) -> CriterionResult:
    return CriterionResult(
        code=c.code,
        title=c.title,
        metric=c.metric,
        compare=c.compare,
        statistic=c.statistic,
        operator=c.operator,
        threshold=c.threshold,
        point=interval.point if interval else None,
        ci_low=interval.ci_low if interval else None,
        ci_high=interval.ci_high if interval else None,
        value=value,
        passed=passed,
        note=note,
    )
