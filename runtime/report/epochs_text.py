"""The lines a report shows for repeated trials (``epochs``) and for the agent's template warnings.

Both are absent from a one-epoch report without warnings, so such a report renders as before.

Each repeated-trials line carries two intervals that answer different questions, each labelled:

* the **task-cluster bootstrap** interval of the pass rate (report.json ``metrics``; a task's epochs
  resample together), the confidence interval every other pass rate carries;
* the **spread between epochs**: a Student t interval over the N per-epoch pass rates. It says how much
  the epochs differ, not how well the pass rate is known; a deterministic agent repeats itself, so its
  width is zero, and a zero width is flagged (⚑) as every other interval's is.
"""

from __future__ import annotations

from typing import Any

from runtime.report.intervals_text import FLAG_MARK, fmt_interval
from runtime.report.numbers import fmt_number
from runtime.report.report_data import IntervalData, ReportData

PASS_METRIC = "task_pass"


def epoch_lines(report: ReportData) -> list[str]:
    """One line per condition and catalog: pass^k, the pass rate with its task-cluster bootstrap interval,
    and the spread between epochs."""
    block = report.get("epochs")
    if not block:
        return []
    spread = block.get(f"{PASS_METRIC}_over_epochs", {})
    lines = []
    for condition, by_catalog in block["pass_hat_k"].items():
        for catalog, values in by_catalog.items():
            ks = ", ".join(f"pass^{k} {fmt_number(v)}" for k, v in values.items())
            parts = [f"{condition} catalog {catalog}: {ks}"]
            interval = report.get("metrics", {}).get(condition, {}).get(catalog, {}).get(PASS_METRIC)
            if interval:
                parts.append(f"{PASS_METRIC} {_bootstrap_text(interval, report)}")
            s = spread.get(condition, {}).get(catalog)
            if s:
                parts.append(spread_text(s, block["epochs"]))
            lines.append("; ".join(parts))
    return lines


def _bootstrap_text(interval: IntervalData, report: ReportData) -> str:
    """``0.2917, task-cluster bootstrap 95% CI [0.2, 0.375]`` (flagged as report.md flags it)."""
    confidence = report.get("bootstrap", {}).get("confidence")
    label = f"task-cluster bootstrap {confidence:.0%} CI" if confidence else "task-cluster bootstrap CI"
    text = fmt_interval(interval, report)
    point, _, rest = text.partition(" ")
    return f"{point}, {label} {rest}" if rest else point


def spread_text(spread: dict[str, Any], epochs: int) -> str:
    """``spread between 2 epochs (t over the epoch means) [0.2917, 0.2917] ⚑ zero width: ...``."""
    low, high = spread["ci_low"], spread["ci_high"]
    text = f"spread between {epochs} epochs (t over the epoch means) [{fmt_number(low)}, {fmt_number(high)}]"
    if low is not None and low == high:
        text += f" {FLAG_MARK} zero width: every epoch's pass rate is the same"
    return text


def warning_lines(report: ReportData) -> list[str]:
    return [f"warning: {w}" for w in report.get("agent_warnings") or ()]
