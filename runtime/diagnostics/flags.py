"""The flag an interval carries wherever it is printed (report.md, the console, sr explain, report.html).

* ``zero width: 1 task/cell``: every stratum x language cell that contributes
  holds one task, so every resample repeats the sample: the interval has zero width not because the
  estimate is certain but because the bootstrap cannot vary it;
* ``N/B undefined``: resamples whose denominator sum was 0 (left out of the percentiles);
* ``undefined``: no point or no defined resample.

Pure Python (no numpy), so the console can import it cheaply.
"""

from __future__ import annotations


def interval_flag(
    point: float | None,
    low: float | None,
    high: float | None,
    *,
    undefined: int | None,
    iterations: int | None,
    max_tasks_per_cell: int | None,
) -> str | None:
    """The flag an interval carries wherever it is printed (module docstring), or None."""
    if point is None or low is None or high is None:
        return "undefined"
    notes = []
    if low == high and max_tasks_per_cell is not None and max_tasks_per_cell <= 1:
        notes.append("zero width: 1 task/cell")
    if undefined:
        notes.append(f"{undefined:,}/{iterations:,} undefined" if iterations else "resamples undefined")
    return "; ".join(notes) or None
