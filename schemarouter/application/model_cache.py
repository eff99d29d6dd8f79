"""`sr cache stats` and `sr cache prune`: the model-call cache (runtime/agents/model_cache.py) read and
trimmed. Neither ever creates a cache file."""

from __future__ import annotations

from pathlib import Path

from runtime.agents.model_cache import CacheStats, ModelCallCache


def cache_stats(path: Path) -> CacheStats:
    cache = ModelCallCache(path, create=False)
    try:
        return cache.stats()
    finally:
        cache.close()


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
