"""One way to print an interval, with its flag (runtime/diagnostics/intervals.py) wherever it appears."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runtime.diagnostics.flags import interval_flag
from runtime.report.numbers import fmt_number

FLAG_MARK = "⚑"


def report_flag(interval: Mapping[str, Any], report: Mapping[str, Any]) -> str | None:
    """The flag of one of report.json's intervals (metrics, differences, gate criteria)."""
    if "flag" in interval:
        return interval["flag"]  # type: ignore[no-any-return]
    if interval.get("ci_low") is None and interval.get("point") is not None:
        return None  # an exact statistic (G5, G6), not an interval
    cells = report.get("scope", {}).get("tasks_per_cell") or {}
    return interval_flag(
        interval.get("point"),
        interval.get("ci_low"),
        interval.get("ci_high"),
        undefined=interval.get("undefined_resamples"),
        iterations=report.get("bootstrap", {}).get("iterations"),
        max_tasks_per_cell=cells.get("max"),
    )


def fmt_interval(interval: Mapping[str, Any] | None, report: Mapping[str, Any], *, missing: str = "—") -> str:
    """``0.5519 [0.4545, 0.6582]``, with `` ⚑ flag`` when flagged."""
    if not interval:
        return missing
    if interval.get("point") is None:
        return "undefined"
    text = fmt_number(interval["point"])
    if interval.get("ci_low") is not None:
        text += f" [{fmt_number(interval['ci_low'])}, {fmt_number(interval['ci_high'])}]"
    flag = report_flag(interval, report)
    return f"{text} {FLAG_MARK} {flag}" if flag else text
