"""`sr cache stats` and `sr cache prune`: the model-call cache (runtime/agents/model_cache.py) read and
trimmed. Neither ever creates a cache file."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from runtime.agents.model_cache import ModelCallCache


class CacheGroup(TypedDict):
    """The entries of one server, model and epoch."""

    base_url: str
    model: str
    epoch: int
    entries: int
    bytes: int
    fingerprints: int


class CacheStats(TypedDict):
    """``ModelCallCache.stats()``: the file, its entries per group, and what the legacy table holds."""

    path: str
    file_bytes: int
    entries: int
    groups: list[CacheGroup]
    legacy_entries: int


def cache_stats(path: Path) -> CacheStats:
    cache = ModelCallCache(path, create=False)
    try:
        raw = cache.stats()
    finally:
        cache.close()
    groups = [
        CacheGroup(
            base_url=g["base_url"],
            model=g["model"],
            epoch=g["epoch"],
            entries=g["entries"],
            bytes=g["bytes"],
            fingerprints=g["fingerprints"],
        )
        for g in raw["groups"]
    ]
    return CacheStats(
        path=raw["path"],
        file_bytes=raw["file_bytes"],
        entries=raw["entries"],
        groups=groups,
        legacy_entries=raw["legacy_entries"],
    )


def stats_lines(stats: CacheStats) -> list[str]:
    lines = [f"{stats['path']}: {stats['entries']} entries, {stats['file_bytes']:,} bytes on disk"]
    for g in stats["groups"]:
        lines.append(
            f"  {g['base_url']}  model {g['model']}  epoch {g['epoch']}: {g['entries']} entries, "
            f"{g['bytes']:,} bytes, {g['fingerprints']} system_fingerprint(s)"
        )
    if stats["legacy_entries"]:
        lines.append(
            f"  {stats['legacy_entries']} entries keyed without the server (written by an earlier "
            "version; never read): `sr cache prune --all` removes them"
        )
    return lines


def cache_prune(path: Path, *, base_url: str | None, model: str | None, everything: bool) -> int:
    cache = ModelCallCache(path, create=False)
    try:
        return cache.prune(base_url=base_url, model=model, everything=everything)
    finally:
        cache.close()
