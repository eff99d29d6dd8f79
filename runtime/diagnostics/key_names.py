"""Which refreshed routes matched only through the state JSON's key names.

A state-aware call retrieves with ``query + "\\n" + state JSON``. The same text with the JSON's key
names taken out (the query and every scalar value kept, in order) is searched on the same index: a
route of the refresh's top k that this search does not match at all (no term in common) matched the
call only through the key names (``executed_route_ids``, ``last_error_class``, ...). A route of the top
k that the key-less text ranks below k holds its slot because of the key names (it may match the
query too, weakly). This queries the deterministic retriever on the stored call text; no episode is
re-run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from schemarouter.runtime.retrieval.index import RetrievalIndex

# The strategies that analyse the call text, state JSON included, as words: for them a key name
# (``executed_route_ids``, ...) is a term that can match documents. Every other registered strategy
# reads the state's typed values (routed to index fields, or encoded), never its key names, so the
# question "which slots did the key names win" does not apply to it.
READS_KEY_NAMES = frozenset({"text_concat"})


def key_names_not_applicable(code: str) -> str | None:
    """Why the key-name kinds do not apply to strategy ``code`` (None: they apply)."""
    if code in READS_KEY_NAMES:
        return None
    return (
        f"not applicable: strategy {code} does not read the state JSON's key names as words (it reads "
        "the state's typed values), so no slot is held by them"
    )


def without_key_names(text: str) -> str | None:
    """The call text with the state JSON's key names removed; None when it carries no JSON object."""
    query, sep, state = text.partition("\n")
    if not sep:
        return None
    try:
        parsed = json.loads(state)
    except ValueError:
        return None
    if not isinstance(parsed, dict):
        return None
    values: list[str] = []
    _values(parsed, values)
    return query + "\n" + " ".join(values)


def _values(node: Any, out: list[str]) -> None:
    if isinstance(node, dict):
        for value in node.values():
            _values(value, out)
    elif isinstance(node, list):
        for value in node:
            _values(value, out)
    elif isinstance(node, str):
        out.append(node)
    else:
        out.append(json.dumps(node))


class KeyNameProbe:
    """Matches of the key-less text per catalog size, memoized by text."""

    def __init__(self, indexes: Mapping[int, RetrievalIndex]) -> None:
        self._indexes = indexes
        self._seen: dict[tuple[int, str], tuple[str, ...]] = {}

    def ranking_without_keys(self, catalog: int, text: str) -> tuple[str, ...] | None:
        """Every route the call text matches with its key names removed, in rank order (None: not a
        state-aware text, or no index for the catalog)."""
        stripped = without_key_names(text)
        index = self._indexes.get(catalog)
        if stripped is None or index is None:
            return None
        key = (catalog, stripped)
        if key not in self._seen:
            self._seen[key] = index.search(stripped, index.size).route_ids
        return self._seen[key]
