"""Progress of a long command, as library functions report it: a callback, never output.

A function that can take more than a moment takes ``progress: Progress | None = None`` and reports each
step of its work as a :class:`Step` (a stage name, how many of its items are done, how many there are).
It prints nothing: the CLI hands in a renderer (``runtime/report/command_progress.py``: a bar on a
terminal, plain lines at a steady interval elsewhere), a notebook its own callback, a test a list's
``append``. ``None`` costs nothing.

    for item in counted(progress, "inspect logs", items, unit="logs"):
        ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Step:
    """``done`` of ``total`` items of ``stage`` (``total`` None: not known in advance)."""

    stage: str
    done: int
    total: int | None = None
    unit: str = ""

    @property
    def finished(self) -> bool:
        return self.total is not None and self.done >= self.total


Progress = Callable[[Step], None]


def announce(
    progress: Progress | None, stage: str, done: int, total: int | None = None, unit: str = ""
) -> None:
    """Report one step (nothing when ``progress`` is None)."""
    if progress is not None:
        progress(Step(stage, done, total, unit))


def counted(progress: Progress | None, stage: str, items: Sequence[T], *, unit: str = "") -> Iterator[T]:
    """Yield ``items``, reporting ``0 of n`` first and ``k of n`` after the k-th item is handled."""
    total = len(items)
    announce(progress, stage, 0, total, unit)
    for done, item in enumerate(items, start=1):
        yield item
        announce(progress, stage, done, total, unit)
