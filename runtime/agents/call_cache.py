"""Where a model agent's call cache comes from: the one seam between the cache and how a run executes.

By default a cache path opens that SQLite file in this process (``model_cache.ModelCallCache``): local
workers on one machine share it safely through SQLite's locking. An executor whose workers must not open
one file each (Ray's, whose actors may run on other hosts) installs an opener that reaches the file's one
owner instead (``runtime/run/executors/ray_cache.py``). The cache's key and format stay model_cache's concern.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from runtime.core.json_value import JSONObject

if TYPE_CHECKING:
    from runtime.agents.model_cache import SerializedRequest, ServerScope


class CallCache(Protocol):
    """What a model agent needs of its cache: requests in, responses out, each under its server scope
    (``model_cache.ServerScope``: server, model, epoch)."""

    def get(
        self, scope: ServerScope, request: SerializedRequest, *, live_fingerprint: str | None = None
    ) -> JSONObject | None: ...

    def put(self, scope: ServerScope, request: SerializedRequest, response: JSONObject) -> None: ...

    def close(self) -> None: ...


CacheOpener = Callable[[Path], CallCache]
_OPENER: list[CacheOpener] = []


def open_call_cache(path: Path) -> CallCache:
    """The cache stored at ``path``, through the installed opener if any."""
    if _OPENER:
        return _OPENER[-1](path)
    from runtime.agents.model_cache import ModelCallCache

    return ModelCallCache(path)


def install_cache_opener(opener: CacheOpener | None) -> None:
    """Route this process's cache opens through ``opener`` (None: back to the SQLite file itself)."""
    _OPENER.clear()
    if opener is not None:
        _OPENER.append(opener)
