"""The stored form of an episode's trace: its JSON, UTF-8, zlib level 1 (the ``trace_zlib`` column).

The worker that ran the episode packs it, so the parent stores the bytes it receives as they are: the
pipe carries about a quarter of the JSON's size, and the compression runs in the workers, beside the
episodes, not in the one process that commits them. zlib gives the same bytes for the same input
wherever it runs, so the store's bytes do not depend on which process packed them.
"""

from __future__ import annotations

import zlib

LEVEL = 1  # fast; the store's bytes have been level 1 since the column was added


def pack_trace(trace_json: str) -> bytes:
    return zlib.compress(trace_json.encode("utf-8"), LEVEL)


def unpack_trace(blob: bytes) -> str:
    return zlib.decompress(blob).decode("utf-8")
