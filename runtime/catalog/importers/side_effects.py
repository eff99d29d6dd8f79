"""The side effect a name and a description say, the most dangerous of every verb in them.

The name is split into words at ``_``, ``-``, ``.``, spaces and camelCase (``getAndDeleteAll`` ->
get, and, delete, all); each word that is a known verb (``READ_VERBS``, ``WRITE_VERBS``,
``DESTRUCTIVE_VERBS``) counts. The description counts only the verbs of ``STATED_DESTRUCTIVE`` in the
third person (``deletes every record``, ``removes``): prose is full of plural nouns that are also
verbs (``posts``, ``blocks``, ``bookings``), so only the unambiguous destructive ones are read from it,
and a description that mentions a deleted item in passing (``lists deleted orders``) does not count.
The most dangerous verb found wins: destructive over write over read. Destructive verbs are the ones
that lose data or cannot be undone (delete, purge, cancel, refund, ...); a reversible change of state
(close, archive, disable, block) is a write.

``name_effect`` returns None when no word of the name is a known verb; each importer then applies its
format's own rule (OpenAPI: the method; MCP: the annotations and their defaults; OpenAI: destructive,
the safe reading), and the verbs can only make that more dangerous, never less: a ``GET`` named
``purgeCache`` is destructive, a ``DELETE`` named ``getThing`` stays destructive. An ``x-side-effect``
the source declares is taken as given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from runtime.catalog.model import SideEffect

READ_VERBS = frozenset(
    [
        "get",
        "list",
        "search",
        "find",
        "lookup",
        "look",
        "fetch",
        "read",
        "query",
        "show",
        "describe",
        "check",
        "count",
        "retrieve",
        "view",
        "browse",
        "inspect",
        "preview",
        "download",
        "export",
        "validate",
        "verify",
        "estimate",
        "quote",
        "calculate",
        "compute",
    ]
)
WRITE_VERBS = frozenset(
    [
        "create",
        "add",
        "update",
        "set",
        "send",
        "post",
        "put",
        "patch",
        "upload",
        "submit",
        "start",
        "schedule",
        "book",
        "reserve",
        "make",
        "write",
        "edit",
        "insert",
        "register",
        "rename",
        "move",
        "copy",
        "import",
        "assign",
        "attach",
        "tag",
        "enable",
        "open",
        "run",
        "execute",
        "apply",
        "approve",
        "invite",
        "notify",
        "publish",
        "reply",
        "merge",
        "sync",
        "save",
        "store",
        "change",
        "modify",
        "replace",
        "append",
        "close",
        "archive",
        "block",
        "suspend",
        "ban",
        "disable",
        "detach",
        "unassign",
        "unpublish",
        "revert",
        "rollback",
        "clear",
    ]
)
DESTRUCTIVE_VERBS = frozenset(
    [
        "delete",
        "remove",
        "destroy",
        "drop",
        "purge",
        "erase",
        "wipe",
        "truncate",
        "cancel",
        "revoke",
        "terminate",
        "kill",
        "reset",
        "void",
        "refund",
        "deactivate",
        "unregister",
        "uninstall",
        "expunge",
        "overwrite",
        "shutdown",
    ]
)
_RANK: dict[SideEffect, int] = {"read": 0, "write": 1, "destructive": 2}
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_FORMS = re.compile(r"[A-Za-z]+")


def words_of(name: str) -> list[str]:
    """``getAndDeleteAll`` -> get, and, delete, all; ``HTTPGet_v2`` -> http, get, v, 2."""
    return [w.lower() for w in _WORDS.findall(name)]


def _effect_of_word(word: str) -> SideEffect | None:
    if word in DESTRUCTIVE_VERBS:
        return "destructive"
    if word in WRITE_VERBS:
        return "write"
    if word in READ_VERBS:
        return "read"
    return None


def most_dangerous(effects: Iterable[SideEffect | None]) -> SideEffect | None:
    """The most dangerous of ``effects`` (None ignored), or None when there is none."""
    best: SideEffect | None = None
    for effect in effects:
        if effect is not None and (best is None or _RANK[effect] > _RANK[best]):
            best = effect
    return best


def name_effect(name: str) -> SideEffect | None:
    """The most dangerous verb of ``name``, or None when no word of it is a known verb."""
    return most_dangerous(_effect_of_word(w) for w in words_of(name))


STATED_DESTRUCTIVE = frozenset(
    [
        "delete",
        "remove",
        "destroy",
        "purge",
        "erase",
        "wipe",
        "truncate",
        "revoke",
        "terminate",
        "overwrite",
        "expunge",
        "cancel",
        "refund",
        "deactivate",
        "uninstall",
        "unregister",
    ]
)


def _stated(word: str) -> bool:
    """Whether ``word`` is a verb of ``STATED_DESTRUCTIVE`` in the third person (``deletes``, ``wipes``)."""
    return any(word.endswith(suffix) and word[: -len(suffix)] in STATED_DESTRUCTIVE for suffix in ("s", "es"))


def description_effect(description: str) -> SideEffect | None:
    """``destructive`` when ``description`` states a destructive verb, else None."""
    stated = any(_stated(w.lower()) for w in _FORMS.findall(description))
    return "destructive" if stated else None


def derived_effect(base: SideEffect, name: str, description: str) -> SideEffect:
    """``base`` (the format's own rule) made as dangerous as the most dangerous verb of the name or the
    description."""
    return most_dangerous((base, name_effect(name), description_effect(description))) or base
