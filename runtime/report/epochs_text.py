"""The lines a report shows for repeated trials (``epochs``) and for the agent's template warnings.

Both are absent from a one-epoch report without warnings, so such a report renders as before."""

from __future__ import annotations

from typing import Any

from schemarouter.runtime.report.numbers import fmt_number


def epoch_lines(report: dict[str, Any]) -> list[str]:
    """One ``pass^k`` line per condition and catalog, with the pass rate's mean and interval over epochs."""
    block = report.get("epochs")
    if not block:
        return []
    spread = block.get("task_pass_over_epochs", {})
    lines = []
    for condition, by_catalog in block["pass_hat_k"].items():
        for catalog, values in by_catalog.items():
            ks = ", ".join(f"pass^{k} {fmt_number(v)}" for k, v in values.items())
            s = spread.get(condition, {}).get(catalog)
            over = (
                f"; task_pass over {block['epochs']} epochs {fmt_number(s['mean'])} "
                f"[{fmt_number(s['ci_low'])}, {fmt_number(s['ci_high'])}]"
                if s
                else ""
            )
            lines.append(f"{condition} catalog {catalog}: {ks}{over}")
    return lines


def warning_lines(report: dict[str, Any]) -> list[str]:
    return [f"warning: {w}" for w in report.get("agent_warnings") or ()]
