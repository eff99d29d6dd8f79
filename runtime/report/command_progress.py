"""How the CLI shows a command's progress (``runtime/core/progress.py`` steps), on stderr so a command's
output stays its own:

* on a terminal, a rich bar per stage (stage, bar, done/total, elapsed), redrawn from the callback at
  most every 0.1 s and removed when the command ends; it starts no thread (``auto_refresh=False``);
* elsewhere (nohup, Slurm, CI logs, a pipe), plain lines, never a control character, at a steady
  interval: a heartbeat thread prints the latest step every ``interval_s`` (10 s) —
  ``sr export: inspect logs 9/15 logs, 34 s`` —, however long one step takes (writing one inspect log
  can take most of a minute), and a last line with the total time when the command ran for more than
  ``quiet_s`` (2 s). A command that fails prints its error, not a last progress line.

``SR_PROGRESS`` in the environment: ``off`` shows nothing (a script that parses a command's combined
output; the test suite sets it), a number of seconds sets the plain lines' interval.

The heartbeat prints only while holding ``_PRINT_LOCK``, and ``os.register_at_fork`` takes that lock
around every fork, so a worker process (``sr preflight``'s pilot, the plots) is never forked while the
heartbeat is in the middle of writing.

Not the episode bar of ``sr run`` (``progress.py``, ``EpisodeProgress``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from runtime.core.progress import Step

INTERVAL_S = 10.0
QUIET_S = 2.0
ENV = "SR_PROGRESS"
_REDRAW_S = 0.1

_PRINT_LOCK = threading.Lock()


def _reset_in_child() -> None:
    global _PRINT_LOCK
    _PRINT_LOCK = threading.Lock()


os.register_at_fork(
    before=lambda: _PRINT_LOCK.acquire(),
    after_in_parent=lambda: _PRINT_LOCK.release(),
    after_in_child=_reset_in_child,
)


def _from_environment(interval_s: float) -> float | None:
    """The plain lines' interval ``SR_PROGRESS`` sets (None: ``off``); ``interval_s`` when unset."""
    raw = os.environ.get(ENV, "").strip().lower()
    if not raw:
        return interval_s
    if raw in ("off", "0", "no", "false"):
        return None
    try:
        value = float(raw)
    except ValueError:
        return interval_s
    return value if value > 0 else None


def step_text(step: Step) -> str:
    """``inspect logs 9/15 logs``; ``reading traces 120 episodes`` when the total is unknown; the stage
    alone when it has no count."""
    if step.total is None and step.done == 0:
        return step.stage
    count = f"{step.done}/{step.total}" if step.total is not None else f"{step.done}"
    return f"{step.stage} {count}{f' {step.unit}' if step.unit else ''}"


class CommandProgress:
    """The callback the CLI hands to a library function; use as a context manager around the call."""

    def __init__(
        self,
        command: str,
        *,
        console: Console | None = None,
        interval_s: float = INTERVAL_S,
        quiet_s: float = QUIET_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.command = command
        self.console = console if console is not None else Console(stderr=True)
        interval = _from_environment(interval_s) if console is None else interval_s
        self._off = interval is None
        self._interval, self._quiet, self._clock = interval or interval_s, quiet_s, clock
        self._start = self._last_redraw = 0.0
        self._last: Step | None = None
        self._bar: RichProgress | None = None
        self._tasks: dict[str, TaskID] = {}
        self._stop = threading.Event()
        self._heartbeat: threading.Thread | None = None

    def __enter__(self) -> CommandProgress:
        self._start = self._clock()
        if self._off:
            return self
        if self.console.is_terminal:
            self._bar = RichProgress(
                TextColumn(f"[bold]{self.command}[/] {{task.description}}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"),
                TimeElapsedColumn(),
                console=self.console,
                auto_refresh=False,
                transient=True,
            )
            self._bar.start()
        else:
            self._heartbeat = threading.Thread(target=self._beat, name="sr-progress", daemon=True)
            self._heartbeat.start()
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if self._bar is not None:
            self._bar.stop()
            return
        if self._off:
            return
        self._stop.set()
        if self._heartbeat is not None:
            self._heartbeat.join()
        elapsed = self._clock() - self._start
        if exc_type is None and elapsed > self._quiet:
            self._line(f"{self.command}: done in {elapsed:,.0f} s")

    def __call__(self, step: Step) -> None:
        self._last = step
        if self._bar is not None:
            self._draw(step, self._clock())

    def line(self) -> str:
        """The plain line for the latest step: ``sr export: inspect logs 9/15 logs, 34 s``."""
        what = step_text(self._last) if self._last is not None else "starting"
        return f"{self.command}: {what}, {self._clock() - self._start:,.0f} s"

    def _beat(self) -> None:
        while not self._stop.wait(self._interval):
            self._line(self.line())

    def _draw(self, step: Step, now: float) -> None:
        assert self._bar is not None
        task = self._tasks.get(step.stage)
        if task is None:
            task = self._tasks[step.stage] = self._bar.add_task(step.stage, total=step.total, unit=step.unit)
        self._bar.update(task, completed=step.done, total=step.total)
        if now - self._last_redraw >= _REDRAW_S or step.finished:
            self._last_redraw = now
            self._bar.refresh()

    def _line(self, text: str) -> None:
        with _PRINT_LOCK:
            self.console.print(text, markup=False, highlight=False, soft_wrap=True)
