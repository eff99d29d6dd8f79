"""The episode progress display of `sr run`, counts only: episodes, and for a model agent the server
traffic (requests in flight, requests and tokens per second, errors; ``runtime/agents/traffic.py``).

On a terminal it is a rich bar redrawn at most ``REDRAW_S`` apart; it never starts a thread
(``auto_refresh=False``: redrawn from the parent's commit loop, which also wakes when nothing commits,
``runtime/run/in_flight.TICK_S``), so worker processes are forked from a single-threaded parent. When
stdout is not a terminal (a log file, CI, Slurm) it prints one plain line every ``LINE_S`` instead of
only at the end, and a last one when the session ends.
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from runtime.agents import traffic

REDRAW_S = 0.25  # at most four redraws a second
LINE_S = 10.0  # one plain line this often when stdout is not a terminal


class EpisodeProgress:
    """``start(already_committed, to_run)`` then ``advance(done, total)``; use as a context manager."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._live = console.is_terminal
        self._progress = Progress(
            TextColumn("[bold]episodes"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            auto_refresh=False,
            transient=False,
        )
        self._task: TaskID | None = None
        self._started = 0.0
        self._last_refresh = 0.0
        self._done = self._total = 0

    def __enter__(self) -> EpisodeProgress:
        if self._live:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live:
            self._progress.refresh()
            self._progress.stop()
        elif self._task is not None:
            self._line()

    def start(self, already_committed: int, to_run: int) -> None:
        traffic.reset()
        self._task = self._progress.add_task("episodes", total=to_run, rate="")
        self._started = self._last_refresh = time.perf_counter()
        self._total = to_run
        if self._live:
            self._progress.refresh()

    def advance(self, done: int, total: int) -> None:
        """An episode finished (or the commit loop woke with nothing finished): redraw if it is time."""
        if self._task is None:
            return
        self._done, self._total = done, total
        now = time.perf_counter()
        if not self._live:
            if now - self._last_refresh >= LINE_S:
                self._last_refresh = now
                self._line()
            return
        if now - self._last_refresh < REDRAW_S and done != total:
            return  # redrawing costs more than an episode commit; the bar catches up within REDRAW_S
        self._last_refresh = now
        self._progress.update(self._task, completed=done, rate=self.rates(now))
        self._progress.refresh()

    def rates(self, now: float) -> str:
        """Episodes per second, and the server traffic when there is any."""
        elapsed = max(now - self._started, 1e-9)
        text = f"{self._done / elapsed:,.0f} ep/s"
        t = traffic.snapshot()
        if t.answered or t.errors or t.in_flight:
            text += (
                f"  {t.in_flight} in flight  {t.answered / elapsed:,.1f} req/s  "
                f"{t.tokens / elapsed:,.0f} tok/s  {t.errors} errors"
            )
        return text

    def _line(self) -> None:
        now = time.perf_counter()
        self._console.print(
            f"episodes {self._done}/{self._total}  {now - self._started:,.0f} s  {self.rates(now)}",
            markup=False,
            highlight=False,
        )
