"""What a run records for its diagnostics as it goes: the key-free answer of every refresh.

The diagnostics ask, of each state-aware refresh after the first turn, which of its slots the call's
text matches with the state JSON's key names taken out, and which it ranks as high
(``runtime/diagnostics/key_names.py``). The worker
that ran the episode holds the catalog's index already, so it answers there (memoized per catalog in
``CatalogResources.key_free``), and the session hands the answers to a scoring in the same process.
Only for a strategy that reads key names (``READS_KEY_NAMES``); nothing here changes the trace.
"""

from __future__ import annotations

from runtime.engine.resources import EngineResources
from runtime.engine.trace import EpisodeTrace
from runtime.retrieval.key_free import (
    READS_KEY_NAMES,
    STATE_AWARE_QUERY,
    KeyFreeKey,
    KeyFreeMatch,
    refresh_routes,
    without_key_names,
)
from runtime.retrieval.strategy import strategy_of


def key_free_matches(
    resources: EngineResources, trace: EpisodeTrace
) -> dict[KeyFreeKey, KeyFreeMatch] | None:
    """``(catalog, key-free text, slots) -> answer`` for the trace's refreshes (None: the experiment's
    strategy reads no key names, or the catalog has no index of the experiment's spec)."""
    catalog = resources.catalog(trace.catalog)
    spec = catalog.retriever_spec
    if spec is None or strategy_of(spec)[0] not in READS_KEY_NAMES or catalog.index is None:
        return None
    out: dict[KeyFreeKey, KeyFreeMatch] = {}
    for i, turn in enumerate(trace.turns):
        if i == 0:
            continue
        for call in turn.retrieval_calls:
            if call.get("query_kind") != STATE_AWARE_QUERY:
                continue
            stripped = without_key_names(str(call.get("text") or ""))
            if stripped is not None:
                routes = refresh_routes(call)
                out[(trace.catalog, stripped, routes)] = catalog.key_free(stripped, routes)
    return out
