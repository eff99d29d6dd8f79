"""What the heat maps and the tokens-vs-pass figure show, as numbers: computed once here, drawn by
``plots.py`` (matplotlib PNGs, on request) and by ``svg_figures.py`` (report.html's inline SVG).

* ``recall_panels``: next-required-tool Recall@5 (ratio of sums) per stratum x language cell, one panel
  per ranking condition x catalog size;
* ``difference_panels``: treatment - comparator per stratum x language cell (task pass: mean of per-task
  differences; Recall@5: difference of the ratios of sums), one panel per metric x catalog size;
* ``token_points``: each condition's and catalog size's mean tool-schema tokens and task pass with their
  95% intervals.

A cell without data is NaN (drawn as a dash). Pure Python over report.json and the per-task rows: no
plotting library is imported here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from runtime.report.report_data import IntervalData, ReportData

PASS_METRIC = "task_pass"
RECALL_METRIC = "next_tool_recall_at_5"
TOKENS_METRIC = "tool_schema_tokens"
# One per-task row of per_task.jsonl: its cell keys (condition, catalog, stratum, language) and every
# metric's value, as scoring wrote them (arbitrary JSON scalars by metric ID).
Row = Mapping[str, Any]
Grid = list[list[float]]  # [stratum][language]
_Cell = tuple[int, str, str]  # catalog, stratum, language
_Sums = dict[tuple[str, int, str, str], list[float]]


@dataclass(frozen=True)
class FigureInputs:
    """What the cell figures read beside report.json: the per-task rows and the spec's cell axes."""

    rows: Sequence[Row]
    strata: Sequence[str]
    languages: Sequence[str]
    recall_components: tuple[str, str]  # Recall@5's numerator and denominator fields in a row


@dataclass(frozen=True)
class Panel:
    """One heat map panel: its title and the stratum x language grid of values."""

    title: str
    grid: Grid


@dataclass(frozen=True)
class TokenPoint:
    """One condition at one catalog size: tokens and pass with their 95% interval ends."""

    condition: str
    catalog: str
    tokens: tuple[float, float, float]  # low, point, high
    passed: tuple[float, float, float]


def ratio(pair: Sequence[float]) -> float:
    return pair[0] / pair[1] if pair[1] else float("nan")


def recall_conditions(report: ReportData) -> list[str]:
    """The conditions Recall@5 applies to (those with the metric at the first catalog size)."""
    first = str(report["scope"]["catalogs"][0])
    return [c for c in report["scope"]["conditions"] if RECALL_METRIC in report["metrics"][c][first]]


def recall_panels(report: ReportData, inputs: FigureInputs) -> list[Panel]:
    """One panel per ranking condition x catalog size, conditions in scope order, then catalogs."""
    sums = _recall_sums(inputs.rows, inputs.recall_components)
    catalogs = [int(k) for k in report["scope"]["catalogs"]]
    return [
        Panel(
            f"{condition}, catalog {catalog}",
            [
                [ratio(sums.get((condition, catalog, s, lang), [0.0, 0.0])) for lang in inputs.languages]
                for s in inputs.strata
            ],
        )
        for condition in recall_conditions(report)
        for catalog in catalogs
    ]


def _recall_sums(rows: Sequence[Row], components: tuple[str, str]) -> _Sums:
    num_key, den_key = components
    sums: _Sums = {}
    for row in rows:
        if row.get(den_key) is None:
            continue
        cell = sums.setdefault(
            (row["condition"], row["catalog"], row["stratum"], row["language"]), [0.0, 0.0]
        )
        cell[0] += row[num_key]
        cell[1] += row[den_key]
    return sums


DIFFERENCE_METRICS = (("task pass", 0), ("Recall@5", 1))


def has_gate_arms(report: ReportData) -> bool:
    gate = report["gate"]
    return all(c in report["scope"]["conditions"] for c in (gate["treatment"], gate["comparator"]))


def difference_panels(report: ReportData, inputs: FigureInputs) -> list[Panel]:
    """One panel per metric (task pass, Recall@5) x catalog size; empty when an arm is missing."""
    if not has_gate_arms(report):
        return []
    arms = (report["gate"]["treatment"], report["gate"]["comparator"])
    sums = _cell_sums(inputs.rows, arms, inputs.recall_components)
    tasks = _tasks_per_cell(inputs.rows, arms[0])
    catalogs = [int(k) for k in report["scope"]["catalogs"]]
    return [
        Panel(
            f"{label}, catalog {catalog}",
            [
                [_difference(sums, tasks, arms, (catalog, s, lang), kind) for lang in inputs.languages]
                for s in inputs.strata
            ],
        )
        for label, kind in DIFFERENCE_METRICS
        for catalog in catalogs
    ]


def _cell_sums(rows: Sequence[Row], conditions: tuple[str, str], components: tuple[str, str]) -> _Sums:
    """Per (condition, catalog, stratum, language): the sums of task pass and of the Recall@5
    numerator and denominator, for the two gate arms."""
    num_key, den_key = components
    sums: _Sums = {}
    for row in rows:
        if row["condition"] not in conditions:
            continue
        cell = sums.setdefault((row["condition"], row["catalog"], row["stratum"], row["language"]), [0.0] * 3)
        cell[0] += row.get(PASS_METRIC) or 0
        cell[1] += row.get(num_key) or 0
        cell[2] += row.get(den_key) or 0
    return sums


def _tasks_per_cell(rows: Sequence[Row], treatment: str) -> dict[_Cell, int]:
    """The treatment's tasks per (catalog, stratum, language): the pairs of a paired difference."""
    tasks: dict[_Cell, int] = {}
    for row in rows:
        if row["condition"] == treatment:
            key = (row["catalog"], row["stratum"], row["language"])
            tasks[key] = tasks.get(key, 0) + 1
    return tasks


def _difference(sums: _Sums, tasks: dict[_Cell, int], arms: tuple[str, str], cell: _Cell, kind: int) -> float:
    """One cell: task pass (kind 0, mean of per-task differences) or Recall@5 (kind 1, difference of
    the ratios of sums); NaN where either arm or the pairs are missing."""
    t, c, n = sums.get((arms[0], *cell)), sums.get((arms[1], *cell)), tasks.get(cell, 0)
    if t is None or c is None or not n:
        return float("nan")
    if kind == 0:
        return (t[0] - c[0]) / n
    return ratio([t[1], t[2]]) - ratio([c[1], c[2]])


def token_points(report: ReportData) -> list[TokenPoint]:
    """Every condition x catalog size with both a tokens and a pass point, in scope order. A missing
    interval end is the point (``ci_high`` 0 counts as missing, as the PNG's error bars read it)."""
    points = []
    for condition in report["scope"]["conditions"]:
        for catalog in (str(k) for k in report["scope"]["catalogs"]):
            block = report["metrics"][condition][catalog]
            tokens, passed = block.get(TOKENS_METRIC), block.get(PASS_METRIC)
            if not tokens or not passed or tokens["point"] is None or passed["point"] is None:
                continue
            points.append(TokenPoint(condition, catalog, _span(tokens), _span(passed)))
    return points


def _span(m: IntervalData) -> tuple[float, float, float]:
    point = m["point"]
    assert point is not None  # token_points skips a block without one
    return (m["ci_low"] if m["ci_low"] is not None else point, point, m["ci_high"] or point)
