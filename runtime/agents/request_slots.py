"""At most N model requests in flight from this process: its share of `sr run --concurrency N`.

A run with episodes in flight starts more episode threads than it has request slots
(``runtime/run/in_flight.episode_threads``). An episode thread builds its episode up to its model call
and waits here for a slot, so a slot freed by an answer is taken at once by an episode already
prepared rather than by one that must first be built (retrieval, prompt, token counts) while the
server waits. inspect_ai does the same with one extra sample (``max_samples`` defaults to
``max_connections + 1``).

Each HTTP attempt holds a slot for its exchange only; a retry's backoff holds none. Slots are a
transport fact: they decide when a request is sent, never what it says or what the episode does.
Without a limit (the default: one episode at a time, the reference agent, a test) a request never
waits.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_SLOTS: list[threading.BoundedSemaphore] = []  # empty: no limit


def limit(requests: int) -> None:
    """Limit this process for the rest of its life (a worker process that serves one run)."""
    if requests < 1:
        raise ValueError(f"request slots: {requests}; at least 1")
    _SLOTS[:] = [threading.BoundedSemaphore(requests)]


@contextmanager
def limited_to(requests: int) -> Iterator[None]:
    """Within the block, at most ``requests`` model requests of this process are in flight at once."""
    previous = list(_SLOTS)
    limit(requests)
    try:
        yield
    finally:
        _SLOTS[:] = previous


@contextmanager
def slot() -> Iterator[None]:
    """Hold one request slot for the block (waiting for one when all are taken)."""
    if not _SLOTS:
        yield
        return
    with _SLOTS[0]:
        yield
