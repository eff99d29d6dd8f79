"""The gate statistics by stable name, each registered where it is defined with the comparisons it
serves (``difference`` and ``treatment`` read a bootstrap interval; ``all_conditions`` reads the rows).

A statistic returns its value and, when undefined, a note saying why (an undefined value meets no
threshold). Every module of this package is imported on first use (``builtin`` first), so a new
statistic is its module, its test, its word in ``runtime/spec_model/vocabulary.py`` (the one statement
of the spec language, which the schemas are checked against) and a successor's gates entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from runtime.core.registry import Registry
from runtime.scoring.bootstrap import Interval
from runtime.scoring.per_task import Row
from runtime.spec_model.gates import GateCriterionSpec
from runtime.spec_model.metrics import MetricSpec


@dataclass(frozen=True)
class StatisticInput:
    """What a statistic reads: the criterion, its metric, the catalog size, the interval of the compared
    quantity (None for ``all_conditions``) and the per-task rows."""

    criterion: GateCriterionSpec
    metric: MetricSpec
    catalog: int
    interval: Interval | None
    rows: Sequence[Row]


StatisticFn = Callable[[StatisticInput], tuple[float | None, str | None]]


@dataclass(frozen=True)
class RegisteredStatistic:
    name: str
    compares: tuple[str, ...]
    fn: StatisticFn


# ``builtin`` first, then the package's other modules, then the ``schemarouter.statistics`` entry points.
STATISTICS: Registry[RegisteredStatistic] = Registry(
    "gate statistic",
    group="statistics",
    package=__name__.rsplit(".", 1)[0],
    first=("builtin",),
    skip=("registry",),
)


def statistic(name: str, *, compares: tuple[str, ...]) -> Callable[[StatisticFn], StatisticFn]:
    def register(fn: StatisticFn) -> StatisticFn:
        STATISTICS.add(name, RegisteredStatistic(name, compares, fn), module=fn.__module__)
        return fn

    return register


def registered_statistics() -> dict[str, RegisteredStatistic]:
    return {e.name: e.value for e in STATISTICS.entries()}
