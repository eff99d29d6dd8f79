"""Semantic checks of metrics.yaml and gates.yaml: references, ratios and the protocol's gate."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, Literal, TypedDict

from compiler.issues import SpecIssue
from compiler.protocol_file import protocol_of
from compiler.semantic_view import SpecView, duplicates
from runtime.spec_model.vocabulary import EXACT_STATISTICS

# The problems this module reports, by stable code (tests/cases/validation/<code>.yaml shows each).
PROBLEMS: Final[dict[str, str]] = {
    "MG101": "the protocol's metric … is missing",
    "MG102": "unknown condition …",
    "MG103": "a ratio metric needs a …",
    "MG104": "only ratio metrics have a …",
    "MG105": "unknown condition …",
    "MG106": "… differs from the protocol's …",
    "MG107": "the protocol's criterion … is missing",
    "MG108": "unknown metric …",
    "MG109": "metric … does not apply to …, which compare=… needs",
    "MG110": "… differs from the protocol's …",
    "MG111": "a statistic that does not fit its compare= (exact ones are over all conditions)",
    "MG112": "ci_low decides a lower bound; … does not",
    "MG113": "ci_high decides an upper bound; … does not",
}

_LOWER_BOUND_OPERATORS = (">=", ">")
_UPPER_BOUND_OPERATORS = ("<=", "<")


def _condition_ids(view: SpecView) -> list[str]:
    return [c["id"] for c in view.data("conditions")["conditions"]]


class MetricScope(TypedDict):
    """What ``applies_to`` reads of a metric of metrics.yaml: "all" or the condition ids."""

    applies_to: Literal["all"] | list[str]


class _NamedScope(MetricScope):
    """A metric's id beside its scope (messages name it)."""

    id: str


def applies_to(metric: MetricScope, condition_ids: list[str]) -> list[str]:
    """The conditions a metric is defined for ("all" resolved)."""
    value = metric["applies_to"]
    return list(condition_ids) if value == "all" else list(value)


def check_metrics(view: SpecView) -> Iterator[SpecIssue]:
    """Unique ids, the protocol's metrics present, real conditions, ratios with numerator and denominator."""
    metrics = view.data("metrics")["metrics"]
    yield from duplicates(view, "metrics", ("metrics",), metrics, "id", "metric")
    ids = [m["id"] for m in metrics]
    for metric_id in protocol_of(view).metric_ids:
        if metric_id not in ids:
            yield view.issue(
                "metrics",
                ("metrics",),
                f"the protocol's metric {metric_id!r} is missing",
                at_key=True,
                code="MG101",
            )
    known = set(_condition_ids(view))
    for index, metric in enumerate(metrics):
        where = ("metrics", index)
        if isinstance(metric["applies_to"], list):
            for c_index, condition_id in enumerate(metric["applies_to"]):
                if condition_id not in known:
                    yield view.issue(
                        "metrics",
                        (*where, "applies_to", c_index),
                        f"unknown condition {condition_id!r}",
                        code="MG102",
                    )
        is_ratio = metric["aggregate"] == "ratio"
        for part in ("numerator", "denominator"):
            if is_ratio and part not in metric:
                yield view.issue(
                    "metrics", where, f"a ratio metric needs a {part}", at_key=True, code="MG103"
                )
            if not is_ratio and part in metric:
                yield view.issue(
                    "metrics", (*where, part), f"only ratio metrics have a {part}", at_key=True, code="MG104"
                )


def check_gate_conditions(view: SpecView) -> Iterator[SpecIssue]:
    """Treatment and comparator are defined conditions, and the protocol's."""
    gates = view.data("gates")
    known = set(_condition_ids(view))
    protocol = protocol_of(view)
    for key, value in (("treatment", protocol.treatment), ("comparator", protocol.comparator)):
        if gates[key] not in known:
            yield view.issue("gates", (key,), f"unknown condition {gates[key]!r}", code="MG105")
        elif gates[key] != value:
            yield view.issue(
                "gates", (key,), f"{gates[key]!r} differs from the protocol's {value!r}", code="MG106"
            )


def check_gate_criteria(view: SpecView) -> Iterator[SpecIssue]:
    """Each criterion names a defined metric that covers the compared conditions, with a coherent
    statistic, and the protocol's criteria are present with its metric, operator and threshold."""
    gates = view.data("gates")
    criteria = gates["criteria"]
    yield from duplicates(view, "gates", ("criteria",), criteria, "code", "criterion")
    metrics = {m["id"]: m for m in view.data("metrics")["metrics"]}
    condition_ids = _condition_ids(view)
    codes = [c["code"] for c in criteria]
    expected = protocol_of(view).gate_criteria
    for code in expected:
        if code not in codes:
            yield view.issue(
                "gates",
                ("criteria",),
                f"the protocol's criterion {code} is missing",
                at_key=True,
                code="MG107",
            )
    for index, criterion in enumerate(criteria):
        where = ("criteria", index)
        yield from _metric_coverage(view, where, criterion, metrics.get(criterion["metric"]), condition_ids)
        yield from _check_statistic(view, where, criterion)
        yield from _protocol_values(view, where, criterion, expected.get(criterion["code"]))


def _metric_coverage(
    view: SpecView,
    where: tuple[str | int, ...],
    criterion: dict[str, Any],
    metric: _NamedScope | None,
    condition_ids: list[str],
) -> Iterator[SpecIssue]:
    """The criterion's metric is defined and applies to every condition its ``compare`` needs."""
    if metric is None:
        yield view.issue("gates", (*where, "metric"), f"unknown metric {criterion['metric']!r}", code="MG108")
        return
    gates = view.data("gates")
    covered = applies_to(metric, condition_ids)
    compared = {
        "difference": [gates["treatment"], gates["comparator"]],
        "treatment": [gates["treatment"]],
        "all_conditions": condition_ids,
    }[criterion["compare"]]
    for condition_id in compared:
        if condition_id not in covered:
            yield view.issue(
                "gates",
                (*where, "metric"),
                f"metric {metric['id']!r} does not apply to {condition_id!r}, "
                f"which compare={criterion['compare']} needs",
                code="MG109",
            )


def _protocol_values(
    view: SpecView,
    where: tuple[str | int, ...],
    criterion: dict[str, Any],
    fixed: tuple[str, str, float] | None,
) -> Iterator[SpecIssue]:
    """A criterion the protocol names has the protocol's metric, operator and threshold."""
    if fixed is None:
        return
    for key, value in zip(("metric", "operator", "threshold"), fixed, strict=True):
        if criterion[key] != value:
            yield view.issue(
                "gates",
                (*where, key),
                f"{criterion[key]!r} differs from the protocol's {value!r}",
                code="MG110",
            )


def _check_statistic(
    view: SpecView, where: tuple[str | int, ...], criterion: dict[str, Any]
) -> Iterator[SpecIssue]:
    """Exact statistics go with all_conditions; an interval decides by its conservative bound."""
    statistic, operator, compare = criterion["statistic"], criterion["operator"], criterion["compare"]
    exact = statistic in EXACT_STATISTICS
    if exact != (compare == "all_conditions"):
        yield view.issue(
            "gates",
            (*where, "statistic"),
            f"{statistic} does not fit compare={compare} "
            "(exact statistics are over all conditions; estimates compare conditions)",
            code="MG111",
        )
    if statistic == "ci_low" and operator not in _LOWER_BOUND_OPERATORS:
        yield view.issue(
            "gates",
            (*where, "operator"),
            f"ci_low decides a lower bound; {operator!r} does not",
            code="MG112",
        )
    if statistic == "ci_high" and operator not in _UPPER_BOUND_OPERATORS:
        yield view.issue(
            "gates",
            (*where, "operator"),
            f"ci_high decides an upper bound; {operator!r} does not",
            code="MG113",
        )
