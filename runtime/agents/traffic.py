"""Counters of the model-server traffic of this run: requests in flight, answered, failed, tokens.

What `sr run`'s progress display shows beside the episode count. The counters live in one small block
of shared memory made when this module is first imported; the parent imports it (through the progress
display) before it forks its worker processes, so every forked worker adds to the same block and the
parent reads the sum. A worker started another way (spawn, a Ray actor) counts for itself only, and
the display then shows the parent's share. Counters are transport facts: they never reach an output.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import multiprocessing.sharedctypes
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from runtime.core.json_value import JSONValue

_IN_FLIGHT, _ANSWERED, _ERRORS, _PROMPT, _COMPLETION = range(5)
_BLOCK: ctypes.Array[ctypes.c_double] = multiprocessing.sharedctypes.RawArray(ctypes.c_double, 5)
_LOCK = multiprocessing.Lock()


@dataclass(frozen=True)
class TrafficSnapshot:
    """The counters at one moment (summed over the forked workers of this run)."""

    in_flight: int
    answered: int
    errors: int
    prompt_tokens: int
    completion_tokens: int

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def _add(index: int, amount: float) -> None:
    with _LOCK:
        _BLOCK[index] += amount


@contextmanager
def request_in_flight() -> Iterator[None]:
    """Count one HTTP attempt as in flight for the block."""
    _add(_IN_FLIGHT, 1)
    try:
        yield
    finally:
        _add(_IN_FLIGHT, -1)


def record_answer(usage: JSONValue) -> None:
    """A request answered usefully, with the server's reported usage (if any)."""
    prompt = completion = 0
    if isinstance(usage, dict):
        prompt = _count(usage.get("prompt_tokens"))
        completion = _count(usage.get("completion_tokens"))
    with _LOCK:
        _BLOCK[_ANSWERED] += 1
        _BLOCK[_PROMPT] += prompt
        _BLOCK[_COMPLETION] += completion


def record_error() -> None:
    """An attempt that failed (transport error, HTTP error, a body that is not a JSON object)."""
    _add(_ERRORS, 1)


def snapshot() -> TrafficSnapshot:
    with _LOCK:
        values = [int(v) for v in _BLOCK]
    return TrafficSnapshot(*values)


def reset() -> None:
    """Zero the counters (a new run in the same process)."""
    with _LOCK:
        for i in range(len(_BLOCK)):
            _BLOCK[i] = 0.0


def _count(value: JSONValue) -> int:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
