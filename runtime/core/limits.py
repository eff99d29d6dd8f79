"""Every limit on the size of what a user hands in, in one place and by name (README.md, "Limits").

Each limit has one clear line past it (``file:line:col: key.path: ... is more than the limit of N``)
and exit 1; below it, the work it bounds finishes in a measured time (README.md gives the figures and
the commands that measured them). A limit is a guard against a hostile or careless file, not a
statement about research designs: raising one is a code change with its own measurement.
"""

from __future__ import annotations

from typing import Final

from runtime.core.safe_json import MAX_DEPTH, MAX_INT_DIGITS

# The bytes of one user document: an OpenAPI / MCP / OpenAI source, an intents or pools file, a judged
# query file. Checked on the file's size before it is read (a device or a growing file is read no further).
DOCUMENT_BYTES: Final = 4_000_000
# Nesting of mappings and lists in any YAML or JSON document (the spec loader's own limit).
NESTING_DEPTH: Final = MAX_DEPTH
# Digits of one integer (Python refuses longer conversions anyway).
INTEGER_DIGITS: Final = MAX_INT_DIGITS
# Operations (OpenAPI) or tools (MCP, OpenAI) of one imported document.
OPERATIONS_PER_DOCUMENT: Final = 2_500
# Characters of one query: `sr retrieve "..."` and each query of `sr retrieval eval --queries`.
QUERY_CHARS: Final = 4_096
# Queries of one judged query file.
QUERIES_PER_FILE: Final = 10_000
# Intents of one intents file (`sr surface generate --intents`).
INTENTS_PER_FILE: Final = 1_000
# Characters of one phrasing of an intent.
PHRASING_CHARS: Final = 1_000
# Tasks of one generated surface (strata x languages x tasks per cell, from the experiment).
TASKS_PER_SURFACE: Final = 20_000
# Items of one set field of a state (`sr retrieve --state`, a judged query's state): more than any
# catalog registers names for (2,500 operations of an import, a few outputs each).
STATE_SET_ITEMS: Final = 10_000
# The value of a count field of a state (attempts): far above any episode's turns.
STATE_COUNT: Final = 1_000_000

LIMITS: Final[dict[str, int]] = {
    "DOCUMENT_BYTES": DOCUMENT_BYTES,
    "NESTING_DEPTH": NESTING_DEPTH,
    "INTEGER_DIGITS": INTEGER_DIGITS,
    "OPERATIONS_PER_DOCUMENT": OPERATIONS_PER_DOCUMENT,
    "QUERY_CHARS": QUERY_CHARS,
    "QUERIES_PER_FILE": QUERIES_PER_FILE,
    "INTENTS_PER_FILE": INTENTS_PER_FILE,
    "PHRASING_CHARS": PHRASING_CHARS,
    "TASKS_PER_SURFACE": TASKS_PER_SURFACE,
    "STATE_SET_ITEMS": STATE_SET_ITEMS,
    "STATE_COUNT": STATE_COUNT,
}


def over_limit(what: str, count: int, name: str) -> str:
    """The message for ``count`` of ``what`` past the limit ``name``: ``12,000 operations, more than
    the limit of 5,000 (OPERATIONS_PER_DOCUMENT, runtime/core/limits.py)``."""
    return f"{count:,} {what}, more than the limit of {LIMITS[name]:,} ({name}, runtime/core/limits.py)"


def query_problem(query: str) -> str | None:
    """Why ``query`` is refused (longer than ``QUERY_CHARS``), or None."""
    if len(query) > QUERY_CHARS:
        return f"the query has {over_limit('characters', len(query), 'QUERY_CHARS')}"
    return None
