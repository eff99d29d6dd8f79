"""How a number is printed in the console verdict and in report.md: one rule for both."""

from __future__ import annotations


def fmt_number(value: float | None, *, missing: str = "undefined") -> str:
    """``1,344.6`` from 100 up, four significant digits below, scientific below 0.001."""
    if value is None:
        return missing
    if abs(value) >= 100:
        return f"{value:,.1f}"
    return f"{value:.4g}" if abs(value) >= 0.001 or value == 0 else f"{value:.2e}"
