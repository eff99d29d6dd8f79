"""`sr run`'s episode bar redraws at most four times a second (``REDRAW_S``), however fast episodes
commit, and always shows the last episode; off a terminal it prints one line every ``LINE_S``."""

from __future__ import annotations

import io
import itertools

import pytest
from rich.console import Console

from runtime.report import progress as progress_module
from runtime.report.progress import LINE_S, REDRAW_S, EpisodeProgress


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _counted(bar: EpisodeProgress) -> list[float]:
    """Record the (fake) time of every redraw of ``bar``'s rich progress."""
    times: list[float] = []
    inner = bar._progress
    original = inner.refresh

    def refresh() -> None:
        times.append(progress_module.time.perf_counter())
        original()

    inner.refresh = refresh  # type: ignore[method-assign]
    return times


@pytest.mark.parametrize("episodes_per_second", [50, 315, 5000])
def test_the_bar_redraws_at_most_four_times_a_second(
    monkeypatch: pytest.MonkeyPatch, episodes_per_second: int
) -> None:
    assert REDRAW_S >= 0.25
    clock = _Clock()
    monkeypatch.setattr(progress_module.time, "perf_counter", clock)
    console = Console(file=io.StringIO(), force_terminal=True, width=100)
    total, seconds = 3 * episodes_per_second, 3.0
    with EpisodeProgress(console) as bar:
        times = _counted(bar)
        bar.start(0, total)
        for done in range(1, total + 1):
            clock.now += seconds / total
            bar.advance(done, total)
    # the start's draw, the timed redraws, the last episode's and the closing one
    timed = times[1:-2]
    assert len(times) <= seconds / REDRAW_S + 3, len(times)
    assert all(b - a >= REDRAW_S - 1e-9 for a, b in itertools.pairwise(timed))
    assert "3" in console.file.getvalue()  # type: ignore[attr-defined]
    assert bar._done == total  # the last episode is always drawn


def test_off_a_terminal_one_line_every_line_s(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _Clock()
    monkeypatch.setattr(progress_module.time, "perf_counter", clock)
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=100)
    total = 3000
    with EpisodeProgress(console) as bar:
        bar.start(0, total)
        for done in range(1, total + 1):
            clock.now += 35.0 / total
            bar.advance(done, total)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert int(35.0 // LINE_S) <= len(lines) <= int(35.0 // LINE_S) + 1, lines
