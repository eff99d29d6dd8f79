"""Names from a source checked before they become a catalog's: route IDs, tool names, domains, fields.

A source's names reach a model's prompt, a trace and a terminal, so each is held to the catalog's
grammars (``runtime/catalog/model.py``: ``ROUTE_ID``, ``TOOL_NAME``, ``DOMAIN``, ``FIELD_NAME``,
``SEMANTIC_ID``, all ASCII) and two Unicode rules, checked first, on every name the source gives
(an operationId, a tag, an ``x-route-id``, a property name, ...):

- an invisible or bidirectional character (Unicode category Cf: zero-width space and joiners, the
  byte-order mark, LRM/RLM, the embeddings, overrides and isolates) is refused: it makes two names
  that print alike differ, or one print as another;
- a name that NFKC normalization changes (``ｇｅｔPet``, full-width; ``ﬁle``, a ligature) is refused,
  showing its NFKC form. It is refused rather than normalized because the normalized name is one the
  source never uses (a client calling the API by it would fail), and because two operations
  ``getPet`` and ``ｇｅｔPet`` would then collide; the fix is one edit the message spells out.

Each problem is an ``IdentifierProblem`` (a ``ValueError``) whose message names the name's role and
shows the name escaped (``documents.shown``), never raw.
"""

from __future__ import annotations

import re
import unicodedata

from runtime.catalog.model import DOMAIN, FIELD_NAME, ROUTE_ID, ROUTE_ID_MAX, SEMANTIC_ID
from runtime.documents import shown


class IdentifierProblem(ValueError):
    """A name from a source that the catalog cannot take; the message names it (escaped)."""


def unicode_problem(value: str, what: str) -> str | None:
    """Why ``value`` (the source's ``what``) breaks the two Unicode rules, or None."""
    for char in value:
        if unicodedata.category(char) == "Cf" or unicodedata.bidirectional(char) in _BIDI_CONTROLS:
            name = unicodedata.name(char, "unnamed")
            return (
                f"{what} {shown(value)} holds the invisible or bidirectional character "
                f"U+{ord(char):04X} ({name}); write the name without it"
            )
    normal = unicodedata.normalize("NFKC", value)
    if normal != value:
        return (
            f"{what} {shown(value)} is not in Unicode NFKC form (NFKC: {shown(normal)}); "
            "write it in that form"
        )
    return None


_BIDI_CONTROLS = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})


def check_unicode(value: str, what: str) -> str:
    """``value`` when it keeps the Unicode rules; an ``IdentifierProblem`` otherwise."""
    problem = unicode_problem(value, what)
    if problem is not None:
        raise IdentifierProblem(problem)
    return value


def check_grammar(value: str, grammar: re.Pattern[str], what: str, *, max_length: int = 64) -> str:
    """``value`` when it keeps the Unicode rules and matches ``grammar``; else an ``IdentifierProblem``."""
    check_unicode(value, what)
    if len(value) > max_length or grammar.match(value) is None:
        raise IdentifierProblem(f"{what} {shown(value)} does not match {grammar.pattern}")
    return value


def check_route_id(value: str, what: str = "route ID") -> str:
    return check_grammar(value, ROUTE_ID, what, max_length=ROUTE_ID_MAX)


def check_domain(value: str, what: str = "domain") -> str:
    return check_grammar(value, DOMAIN, what)


def check_field_name(value: str, what: str) -> str:
    return check_grammar(value, FIELD_NAME, what)


def check_semantic_id(value: str, what: str) -> str:
    return check_grammar(value, SEMANTIC_ID, what, max_length=ROUTE_ID_MAX)


def label(name: str) -> str:
    """``name`` as the WHERE of a problem line shows it: as it is when it is printable ASCII without
    spaces, else escaped (``documents.shown``)."""
    if name.isascii() and name.isprintable() and " " not in name and len(name) <= 80:
        return name
    return shown(name, 80)
