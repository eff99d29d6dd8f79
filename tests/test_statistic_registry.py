"""Gate statistics are registered where they are defined; the registry says exactly what the spec
vocabulary says, and each statistic serves the comparisons the vocabulary pairs it with."""

from __future__ import annotations

from runtime.scoring.bootstrap import Interval
from runtime.scoring.statistics import StatisticInput, registered_statistics
from runtime.spec_model.gates import GateCriterionSpec
from runtime.spec_model.metrics import MetricSpec
from runtime.spec_model.vocabulary import EXACT_STATISTICS, STATISTICS


def test_the_registry_holds_exactly_the_vocabulary() -> None:
    registered = registered_statistics()
    assert sorted(registered) == sorted(STATISTICS)
    for name, entry in registered.items():
        assert (entry.compares == ("all_conditions",)) == (name in EXACT_STATISTICS), name


def _input(statistic: str, interval: Interval | None, rows: list[dict[str, object]]) -> StatisticInput:
    criterion = GateCriterionSpec(
        rationale="r",
        code="G9",
        title="t",
        metric="m",
        compare="treatment",
        statistic=statistic,
        operator=">=",
        threshold=0,
    )
    metric = MetricSpec(
        level="task",
        definition="d",
        id="m", title="m", unit="ratio", aggregate="ratio", numerator="hits", denominator="points",
        applies_to=("A",), deterministic=True, better="higher",
    )  # fmt: skip
    return StatisticInput(criterion, metric, 100, interval, rows)  # type: ignore[arg-type]


def test_interval_statistics_read_the_interval_and_say_when_undefined() -> None:
    stats = registered_statistics()
    interval = Interval(0.5, 0.25, 0.75, 100)
    assert stats["ci_low"].fn(_input("ci_low", interval, [])) == (0.25, None)
    value, note = stats["point"].fn(_input("point", Interval(None, None, None, 0), []))
    assert value is None and note == "undefined: point of m has no defined value"


def test_the_exact_ratio_sums_components_over_the_scoped_rows_only() -> None:
    rows = [
        {"catalog": 100, "condition": "A", "hits": 1, "points": 2},
        {"catalog": 100, "condition": "A", "hits": 2, "points": 2},
        {"catalog": 100, "condition": "B", "hits": 0, "points": 9},  # the metric does not apply to B
        {"catalog": 250, "condition": "A", "hits": 0, "points": 9},  # another catalog
    ]
    assert registered_statistics()["exact_ratio"].fn(_input("exact_ratio", None, rows)) == (0.75, None)
    none = [{"catalog": 100, "condition": "A", "hits": 0, "points": 0}]
    assert registered_statistics()["exact_ratio"].fn(_input("exact_ratio", None, none)) == (
        None,
        "undefined: no points at catalog 100",
    )
