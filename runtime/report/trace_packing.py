"""report.html's packed traces, compressed on a second thread while the scoring goes on.

``packed_traces`` is the page's one definition of the bytes: the stored traces as one gzip-compressed
JSON array, no timestamp. zlib releases the GIL while it compresses, so ``TracePacker`` starts it as soon
as every trace is audited and the bootstrap and diagnostics run beside it on the other core. The page
takes the result only for the very trace strings it was started on (checked by identity, in order);
any other list is packed again on the spot. Either way the bytes are ``packed_traces``' own.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol


class _Traced(Protocol):
    @property
    def trace_json(self) -> str | None: ...


def packed_traces(traces: Sequence[str | None]) -> bytes:
    """The stored traces as one gzip-compressed JSON array (no timestamp, so the bytes are the data's)."""
    return gzip.compress(
        ("[" + ",".join(t if t is not None else "null" for t in traces) + "]").encode("utf-8"),
        compresslevel=6,
        mtime=0,
    )


class TracePacker:
    """One background packing per scoring; ``close`` always, so no thread outlives it."""

    def __init__(self) -> None:
        self._traces: list[str | None] | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._future: Future[bytes] | None = None

    def start(self, outcomes: Sequence[_Traced]) -> None:
        """Begin packing these outcomes' traces (the scoring's hook once every trace is audited)."""
        self.close()
        self._traces = [o.trace_json for o in outcomes]
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sr-pack-traces")
        self._future = self._pool.submit(packed_traces, self._traces)

    def packed(self, traces: Sequence[str | None]) -> bytes:
        """``packed_traces(traces)``: the background result when it was started on these very strings."""
        started, future = self._traces, self._future
        same = (
            started is not None
            and len(started) == len(traces)
            and all(a is b for a, b in zip(started, traces, strict=True))
        )
        if future is None or not same:
            return packed_traces(traces)
        return future.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = self._future = None
        self._traces = None
