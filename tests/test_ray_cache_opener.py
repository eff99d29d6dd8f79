"""Which model-call cache a Ray worker opens (runtime/run/executors/ray_cache.py), without Ray: the
run's cache file itself on the owner's node (SQLite's locking between processes of one host, as local
workers share it), a round trip to the owner actor from any other node; any other path is a local file."""

from __future__ import annotations

import types
from pathlib import Path

from runtime.agents.model_cache import ModelCallCache
from runtime.run.executors.ray_cache import RemoteCallCache, remote_opener


def test_a_worker_on_the_owners_node_opens_the_file_and_elsewhere_asks_the_owner(tmp_path: Path) -> None:
    run_cache, other = tmp_path / "model-calls.sqlite", tmp_path / "other.sqlite"
    owners = {str(run_cache.resolve()): object()}  # the owner actor's handle, never called here
    ray = types.ModuleType("ray")

    elsewhere = remote_opener(ray, owners, owners_node=False)  # type: ignore[arg-type]
    assert isinstance(elsewhere(run_cache), RemoteCallCache)
    assert isinstance(elsewhere(other), ModelCallCache)

    here = remote_opener(ray, owners, owners_node=True)  # type: ignore[arg-type]
    assert isinstance(here(run_cache), ModelCallCache)
    assert isinstance(here(other), ModelCallCache)
