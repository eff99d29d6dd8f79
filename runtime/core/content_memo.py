"""A bounded, per-process memo of what a file's exact bytes parse to.

One process often parses the same unchanged file many times: a successor's ``sr freeze`` reads the task
surface and the catalogs once per engine it loads (the pilot, the behaviour check, the code pin), and a
test process runs hundreds of commands on the same few files. Every reader still reads its file on
every call, and the content just read is the key: the bytes themselves, compared whole, or (where a
memo keeps hundreds of files, or the value is derived from already digested data) their sha256, so:

* a file whose bytes changed is parsed again, whatever its name or modification time;
* a file that fails to parse is never remembered (its error is raised again on the next read);
* the same bytes under another name give the same result, which holds for every reader here: a reader
  whose result names the path (a fingerprint) has the path in its key.

Every caller gets the same object, so a value kept must be one no caller changes: a frozen model or a
tuple, or parsed data whose every reader only reads it (the fingerprints' data and item digests,
``compiler/canonical.py``, which say so). At most
``maxsize`` entries per memo, least recently used dropped first; safe to call from several threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ContentMemo(Generic[K, V]):
    """``get(key, build)``: the value remembered for ``key``, or ``build()`` remembered for it."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("a memo keeps at least one entry")
        self._maxsize = maxsize
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def lookup(self, key: K) -> V | None:
        with self._lock:
            if key not in self._entries:
                return None
            self._entries.move_to_end(key)
            return self._entries[key]

    def remember(self, key: K, value: V) -> V:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._maxsize:
                self._entries.popitem(last=False)
        return value

    def get(self, key: K, build: Callable[[], V]) -> V:
        """Built outside the lock: two threads may both build the same value; either result is kept."""
        found = self.lookup(key)
        return found if found is not None else self.remember(key, build())

    def __len__(self) -> int:
        return len(self._entries)
