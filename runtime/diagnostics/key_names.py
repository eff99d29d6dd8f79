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

from collections.abc import Callable, Mapping

from runtime.retrieval.index import RetrievalIndex
from runtime.retrieval.key_free import (
    READS_KEY_NAMES,
    KeyFreeKey,
    KeyFreeMatch,
    KeyFreeMatches,
    key_free_match,
    without_key_names,
)

__all__ = ["READS_KEY_NAMES", "KeyNameProbe", "key_names_not_applicable", "without_key_names"]


def key_names_not_applicable(code: str) -> str | None:
    """Why the key-name kinds do not apply to strategy ``code`` (None: they apply)."""
    if code in READS_KEY_NAMES:
        return None
    return (
        f"not applicable: strategy {code} does not read the state JSON's key names as words (it reads "
        "the state's typed values), so no slot is held by them"
    )


class KeyNameProbe:
    """What the key-less text of a refresh says of its slots, per catalog size, memoized.

    ``known``: answers a run recorded as it went (``(catalog, key-less text, slots) -> answer``, from the
    workers' own indexes); ``indexes`` builds the catalogs' indexes only when a refresh is not known (a
    run scored in another process, or resumed over several). Either way an answer is the same search
    on an index built from the same spec and endpoints."""

    def __init__(
        self,
        indexes: Callable[[], Mapping[int, RetrievalIndex]],
        known: KeyFreeMatches | None = None,
    ) -> None:
        self._indexes = indexes
        self._built: Mapping[int, RetrievalIndex] | None = None
        self._seen: dict[KeyFreeKey, KeyFreeMatch] = dict(known or {})
        self.searched = 0  # refreshes this probe searched itself (the rest were known)

    def key_free_match(self, catalog: int, text: str, routes: tuple[str, ...]) -> KeyFreeMatch | None:
        """Which of a refresh's ``routes`` its text matches with the key names removed, and the top
        ``len(routes)`` of that text (None: not a state-aware text, or no index for the catalog)."""
        stripped = without_key_names(text)
        if stripped is None:
            return None
        key = (catalog, stripped, routes)
        found = self._seen.get(key)
        if found is not None:
            return found
        if self._built is None:
            self._built = self._indexes()
        index = self._built.get(catalog)
        if index is None:
            return None
        self.searched += 1
        found = self._seen[key] = key_free_match(index, stripped, routes)
        return found
