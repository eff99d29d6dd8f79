"""The loaded engine outlives every episode of a session: keep it out of the cyclic collector's scans.

CPython's full collections walk every tracked object, and after an engine loads (catalogs, indexes,
the compiled spec, the imported modules) most of them are the engine's, which live until the session
ends. ``settle`` moves everything allocated so far out of the collector's generations
(``gc.freeze``): a full collection then walks only what the episodes allocate, and a worker forked
after it does not copy the engine's memory pages by writing their collector headers (the use the
Python documentation gives for it). ``session`` returns them to the collector when the session ends,
so a process that runs many sessions (a test run, a notebook) frees what the last one left.

A process whose own code froze objects before the session (``gc.get_freeze_count()`` above 0: a host
application's choice) is left as it is: the session neither freezes nor unfreezes anything there.
Reference counting still frees every object that is not in a cycle; nothing here changes what an
episode computes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_OURS = [False]  # within a session that found nothing frozen (a forked worker inherits it)


def settle() -> None:
    """Everything allocated so far lives to the end of the session (call once the engine is loaded)."""
    if _OURS[0]:
        gc.freeze()


@contextmanager
def session() -> Iterator[None]:
    """A session's block: whatever ``settle`` set aside within it goes back to the collector at its end."""
    if _OURS[0] or gc.get_freeze_count() > 0:  # nested, or the host's own freeze: leave it alone
        yield
        return
    _OURS[0] = True
    try:
        yield
    finally:
        _OURS[0] = False
        gc.unfreeze()
