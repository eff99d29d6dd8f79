"""The episode progress bar of `sr run` (rich), counts only.

It never starts a thread (``auto_refresh=False``, refreshed from the parent's commit loop at most every
0.1 s), so worker processes are forked from a single-threaded parent.
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

_REFRESH_S = 0.1


class EpisodeProgress:
    """``start(already_committed, to_run)`` then ``advance(done, total)``; use as a context manager."""

    def __init__(self, console: Console) -> None:
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

    def __enter__(self) -> EpisodeProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.refresh()
        self._progress.stop()

    def start(self, already_committed: int, to_run: int) -> None:
        self._task = self._progress.add_task("episodes", total=to_run, rate="")
        self._started = time.perf_counter()
        self._progress.refresh()

    def advance(self, done: int, total: int) -> None:
        if self._task is None:
            return
        now = time.perf_counter()
        if now - self._last_refresh < _REFRESH_S and done != total:
            return  # redrawing costs more than an episode commit; the bar catches up within 0.1 s
        self._last_refresh = now
        rate = done / (now - self._started) if now > self._started else 0.0
        self._progress.update(self._task, completed=done, rate=f"{rate:,.0f} ep/s")
        self._progress.refresh()
