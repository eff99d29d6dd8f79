"""A state-aware call's text with the state JSON's key names taken out, and its ranking on an index.

A state-aware call of a strategy that reads the call text as words (``READS_KEY_NAMES``) retrieves with
``query + "\\n" + state JSON``. The same text without the JSON's key names (the query and every scalar
value kept, in order) ranked on the same index says which routes matched only through the key names.
The diagnostics ask this of every refresh's slots (``runtime/diagnostics/key_names.py``): which of them
the key-free text matches at all, and which it ranks within as many places. A run records the answers
as it goes (``key_free_match``, from the worker's own index), so the diagnostics of a run scored in the
same process need not index the catalogs or search again. Nothing here enters a trace.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from runtime.core.json_value import JSONValue
from runtime.retrieval.index import RetrievalIndex

# The strategies that analyse the call text, state JSON included, as words: for them a key name
# (``executed_route_ids``, ...) is a term that can match documents. Every other registered strategy
# reads the state's typed values (routed to index fields, or encoded), never its key names.
READS_KEY_NAMES = frozenset({"text_concat"})

# The query kind of a state-aware retrieval call in a trace.
STATE_AWARE_QUERY = "original_plus_state"


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


# (catalog size, a refresh's text without the state JSON's key names, the refresh's routes) -> the answer.
KeyFreeKey = tuple[int, str, tuple[str, ...]]


@dataclass(frozen=True)
class KeyFreeMatch:
    """What a refresh's key-free text says of the routes the refresh returned (its slots): which of
    them it matches at all, and its own first ``len(routes)`` routes, in rank order."""

    matched: frozenset[str]
    top: tuple[str, ...]


KeyFreeMatches = Mapping[KeyFreeKey, KeyFreeMatch]


def refresh_routes(call: Mapping[str, JSONValue]) -> tuple[str, ...]:
    """The routes a stored retrieval call returned, cut at its depth: the refresh's slots."""
    returned = call.get("route_ids")
    route_ids = tuple(str(r) for r in returned) if isinstance(returned, list) else ()
    depth = call.get("depth")
    return route_ids[:depth] if isinstance(depth, int) and depth > 0 else route_ids


def key_free_match(index: RetrievalIndex, stripped: str, routes: tuple[str, ...]) -> KeyFreeMatch:
    """``stripped`` (a ``without_key_names`` text) on ``index``, asked about a refresh's ``routes``:
    the same answers as ranking every route it matches (``routes`` it matches at any depth; its top
    ``len(routes)``), without ranking the whole catalog."""
    ranking, matched = index.top_and_matching(stripped, routes)
    return KeyFreeMatch(matched=matched, top=ranking.route_ids)
