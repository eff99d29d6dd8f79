"""The statistics of the spec vocabulary: a bootstrap interval's point and bounds, and the exact count
and ratio over every episode of every condition in scope."""

from __future__ import annotations

from runtime.scoring.estimates import round_sig
from runtime.scoring.per_task import Row
from runtime.scoring.statistics.registry import StatisticInput, statistic

_INTERVAL = ("difference", "treatment")


def _undefined(s: StatisticInput, value: float | None) -> tuple[float | None, str | None]:
    note = (
        None
        if value is not None
        else f"undefined: {s.criterion.statistic} of {s.metric.id} has no defined value"
    )
    return value, note


@statistic("point", compares=_INTERVAL)
def point(s: StatisticInput) -> tuple[float | None, str | None]:
    return _undefined(s, s.interval.point if s.interval else None)


@statistic("ci_low", compares=_INTERVAL)
def ci_low(s: StatisticInput) -> tuple[float | None, str | None]:
    return _undefined(s, s.interval.ci_low if s.interval else None)


@statistic("ci_high", compares=_INTERVAL)
def ci_high(s: StatisticInput) -> tuple[float | None, str | None]:
    return _undefined(s, s.interval.ci_high if s.interval else None)


def _scoped(s: StatisticInput) -> list[Row]:
    return [r for r in s.rows if r["catalog"] == s.catalog and r["condition"] in s.metric.applies_to]


@statistic("exact_count", compares=("all_conditions",))
def exact_count(s: StatisticInput) -> tuple[float | None, str | None]:
    return round_sig(float(sum(r[s.metric.id] for r in _scoped(s)))), None


@statistic("exact_ratio", compares=("all_conditions",))
def exact_ratio(s: StatisticInput) -> tuple[float | None, str | None]:
    num_key, den_key = s.metric.components()
    scoped = _scoped(s)
    numerator = sum(r[num_key] for r in scoped)
    denominator = sum(r[den_key] for r in scoped)
    if denominator == 0:
        return None, f"undefined: no {den_key} at catalog {s.catalog}"
    return round_sig(numerator / denominator), None
