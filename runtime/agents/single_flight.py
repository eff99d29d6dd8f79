"""One server call per distinct request at a time, among the threads of one process.

With episodes in flight side by side (`sr run --concurrency N`), two episodes often send the same
request at once: the first turn of one task under two conditions that expose the same tools. Run one
after the other, the second is a cache hit; run together, both would miss and both would call the
server. :class:`SingleFlight` lets the first caller of a key make the call while every later caller of
that key waits for it to finish and then reads the cache, so a run makes the same server calls at any
concurrency. Which of two simultaneous episodes records the hit follows arrival order, as it already
does across worker processes: cache provenance is transport, like latency, never an outcome.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class SingleFlight:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._flights: dict[str, threading.Event] = {}

    @contextmanager
    def leader(self, key: str) -> Iterator[bool]:
        """Yields True to the one caller that should call the server for ``key`` (the others wait
        until it is done and get False: the answer is in the cache by then, unless the call failed)."""
        with self._lock:
            event = self._flights.get(key)
            lead = event is None
            if event is None:
                event = self._flights[key] = threading.Event()
        if not lead:
            event.wait()
            yield False
            return
        try:
            yield True
        finally:
            with self._lock:
                del self._flights[key]
            event.set()
