"""Counters of the model-server traffic of this run: requests in flight, answered, failed, tokens.

What `sr run`'s progress display shows beside the episode count. The counters live in one small block
of shared memory made when this module is first imported; the parent imports it (through the progress
display) before it forks its worker processes, so every forked worker adds to the same block and the
parent reads the sum. A Ray actor counts for itself and returns its counters with each batch's
results; the driver adds the newest of each actor as a share (``add_share``), so the display sums them
too (an actor's requests in flight as of its last returned batch). Counters are transport facts: they
never reach an output.
"""

from __future__ import annotations

import ctypes
import dataclasses
import multiprocessing
import multiprocessing.sharedctypes
import threading
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
    """This process's counters (with its forked workers') and every share."""
    with _LOCK:
        values = [int(v) for v in _BLOCK]
    with _SHARES_LOCK:
        for _, share in _SHARES.values():
            values = [a + b for a, b in zip(values, dataclasses.astuple(share), strict=True)]
    return TrafficSnapshot(*values)


def reset() -> None:
    """Zero the counters and forget the shares (a new run in the same process)."""
    with _LOCK:
        for i in range(len(_BLOCK)):
            _BLOCK[i] = 0.0
    with _SHARES_LOCK:
        _SHARES.clear()


_SHARES: dict[str, tuple[int, TrafficSnapshot]] = {}
_SHARES_LOCK = threading.Lock()


def add_share(source: str, seq: int, counted: TrafficSnapshot) -> None:
    """Another process's counters (a Ray actor's ``snapshot()``, taken as its ``seq``-th): kept when
    newer than the share held for ``source`` (results can arrive out of the order they were taken)."""
    with _SHARES_LOCK:
        held = _SHARES.get(source)
        if held is None or seq > held[0]:
            _SHARES[source] = (seq, counted)


def settle_shares(source: str | None = None) -> None:
    """A share's process has nothing in flight any more (its actor died; None: every share, the run
    ended)."""
    with _SHARES_LOCK:
        for name, (seq, share) in list(_SHARES.items()):
            if source is None or name == source:
                _SHARES[name] = (seq, dataclasses.replace(share, in_flight=0))


def _count(value: JSONValue) -> int:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
