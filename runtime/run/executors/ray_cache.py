"""The model-call cache of a Ray run: one owner actor holds the SQLite file, every worker asks it.

SQLite must not be shared over a network file system, and Ray's workers may run on other hosts. So the
driver starts a :class:`CacheOwner` actor pinned to its own node; it opens the file (lazily: a run whose
agent makes no model call creates none) and serves ``get``/``put`` one at a time. Each worker installs
:func:`remote_opener` as its process's cache opener (``runtime/agents/call_cache.py``), so a model agent
in a worker reads and writes the run's one cache, as local workers do through SQLite's own locking: a
call one worker made is a hit for every other, and the file is the same whichever executor ran.

A worker on the owner's own node opens the file itself, as local worker processes do: the file is on
that host's disk, and SQLite's locking is safe between processes of one host. Only workers on other
nodes pay a round trip to the owner per call (at N = 256 on one machine, every call through the owner
made a cached run about 7 s slower than opening the file; README).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from runtime.agents.call_cache import CacheOpener, CallCache
from runtime.agents.model_cache import ModelCallCache, SerializedRequest, ServerScope
from runtime.core.json_value import JSONObject

if TYPE_CHECKING:
    from ray.actor import ActorHandle


class CacheOwner:
    """Ray actor body (wrapped with ``ray.remote`` by the executor): the one opener of the file."""

    def __init__(self, path: str) -> None:
        self._path = Path(path)
        self._cache: CallCache | None = None

    def _open(self) -> CallCache:
        if self._cache is None:
            self._cache = ModelCallCache(self._path)  # this actor's process is the file's only opener
        return self._cache

    def get(
        self, scope: ServerScope, request: SerializedRequest, live_fingerprint: str | None = None
    ) -> JSONObject | None:
        return self._open().get(scope, request, live_fingerprint=live_fingerprint)

    def put(self, scope: ServerScope, request: SerializedRequest, response: JSONObject) -> None:
        self._open().put(scope, request, response)

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
            self._cache = None


class RemoteCallCache:
    """A worker's view of the owner's cache: the agent's ``CallCache``, one round trip per call."""

    def __init__(self, ray: ModuleType, owner: ActorHandle[CacheOwner]) -> None:
        self._ray, self._owner = ray, owner
        self.hits = self.misses = 0

    def get(
        self, scope: ServerScope, request: SerializedRequest, *, live_fingerprint: str | None = None
    ) -> JSONObject | None:
        response: JSONObject | None = self._ray.get(self._owner.get.remote(scope, request, live_fingerprint))
        if response is None:
            self.misses += 1
        else:
            self.hits += 1
        return response

    def put(self, scope: ServerScope, request: SerializedRequest, response: JSONObject) -> None:
        self._ray.get(self._owner.put.remote(scope, request, response))  # stored before the episode returns

    def close(self) -> None:
        """The owner closes the file when the run ends."""


def remote_opener(
    ray: ModuleType, owners: dict[str, ActorHandle[CacheOwner]], *, owners_node: bool
) -> CacheOpener:
    """Open the run's cache (by resolved path) through its owner; any other path, or any path when this
    worker runs on the owners' node (``owners_node``), as a local file."""

    def opener(path: Path) -> CallCache:
        owner = owners.get(str(Path(path).resolve()))
        if owner is None or owners_node:
            return ModelCallCache(path)
        return RemoteCallCache(ray, owner)

    return opener
