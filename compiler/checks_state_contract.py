"""Semantic checks of state_contract.yaml: the protocol's allowed and forbidden items."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from compiler.issues import SpecIssue
from compiler.protocol_file import protocol_of
from compiler.semantic_view import SpecView, duplicates
from runtime.state.guard import GuardVocabulary, StateGuard
from runtime.state.layout import field_problems

# The problems this module reports, by stable code (tests/cases/validation/<code>.yaml shows each).
PROBLEMS: Final[dict[str, str]] = {
    "SC101": "a state field that is not one of the protocol's allowed items",
    "SC102": "the protocol's state field … is missing",
    "SC103": "… differs from the protocol's …",
    "SC104": "forbidden item … (…) is missing",
    "SC105": "alias … already names forbidden item …",
    "SC106": "… is both allowed and forbidden (forbidden item …)",
    "SC107": "… is both the query item and forbidden",
    "SC108": "not a valid regular expression: …",
    "SC109": "must be anchored with ^ and $ so free text cannot ride in",
    "SC110": "unknown condition …",
    "SC111": "condition … does not retrieve with original_plus_state, so the state JSON must not reach it",
    "SC112": "condition … retrieves with original_plus_state but is not listed",
    "SC113": "… is not a state field kind (or its items or values do not fit the kind)",
    "SC114": "… is not a state field source, or the field names none",
    "SC115": "kind … cannot hold source …",
    "SC116": "state field … carries forbidden item … (the guard would refuse every state)",
}
_CODES = {"kind": "SC113", "source": "SC114", "holds": "SC115"}

NAME = "state_contract"


def check_allowed_fields(view: SpecView) -> Iterator[SpecIssue]:
    """The allowed list holds exactly the protocol's state fields, once each, and its query item."""
    allowed = view.data(NAME)["allowed"]
    protocol = protocol_of(view)
    expected = protocol.allowed_state
    yield from duplicates(view, NAME, ("allowed",), allowed, "name", "state field")
    names = [field["name"] for field in allowed]
    for index, name in enumerate(names):
        if name not in expected:
            yield view.issue(
                NAME,
                ("allowed", index, "name"),
                f"state field {name!r} is not one of the protocol's allowed items "
                f"(a state field may not be added to the frozen contract)",
                code="SC101",
            )
    for name in expected:
        if name not in names:
            yield view.issue(
                NAME,
                ("allowed",),
                f"the protocol's state field {name!r} is missing",
                at_key=True,
                code="SC102",
            )
    query = view.data(NAME)["query"]["name"]
    if query != protocol.query_item:
        yield view.issue(
            NAME,
            ("query", "name"),
            f"{query!r} differs from the protocol's {protocol.query_item!r}",
            code="SC103",
        )


def check_field_kinds_and_sources(view: SpecView) -> Iterator[SpecIssue]:
    """Each field names a kind of runtime/state/kinds.py and a source of runtime/state/sources.py
    (or is one of the twelve fields whose source its name implies), and its kind can hold its source."""
    contract = view.data(NAME)
    lists = {k: v for k, v in contract.items() if isinstance(v, list)}
    for index, field in enumerate(contract["allowed"]):
        for problem in field_problems(field, lists):
            where: tuple[str | int, ...] = ("allowed", index, problem.key)
            if problem.key == "type" and problem.what == "kind" and "kind" in (field.get("type") or {}):
                where = (*where, "kind")
            yield view.issue(NAME, where, problem.message, code=_CODES[problem.what])


def check_forbidden_items(view: SpecView) -> Iterator[SpecIssue]:
    """Every forbidden item of the protocol is listed; ids and aliases are unique across the list."""
    forbidden = view.data(NAME)["forbidden"]
    yield from duplicates(view, NAME, ("forbidden",), forbidden, "id", "forbidden item")
    ids = {item["id"] for item in forbidden}
    for item_id, words in protocol_of(view).forbidden.items():
        if item_id not in ids:
            yield view.issue(
                NAME,
                ("forbidden",),
                f"forbidden item {item_id!r} ({words}) is missing",
                at_key=True,
                code="SC104",
            )
    owner: dict[str, str] = {item["id"]: item["id"] for item in forbidden}
    for index, item in enumerate(forbidden):
        for alias_index, alias in enumerate(item["aliases"]):
            if alias in owner and owner[alias] != item["id"]:
                yield view.issue(
                    NAME,
                    ("forbidden", index, "aliases", alias_index),
                    f"alias {alias!r} already names forbidden item {owner[alias]!r}",
                    code="SC105",
                )
            owner.setdefault(alias, item["id"])


def check_allowed_disjoint_from_forbidden(view: SpecView) -> Iterator[SpecIssue]:
    """No allowed name (nor the query item) is a forbidden id or alias."""
    contract = view.data(NAME)
    forbidden_names: dict[str, str] = {}
    for item in contract["forbidden"]:
        for name in (item["id"], *item["aliases"]):
            forbidden_names.setdefault(name, item["id"])
    for index, field in enumerate(contract["allowed"]):
        if field["name"] in forbidden_names:
            yield view.issue(
                NAME,
                ("allowed", index, "name"),
                f"{field['name']!r} is both allowed and forbidden "
                f"(forbidden item {forbidden_names[field['name']]!r})",
                code="SC106",
            )
    query = contract["query"]["name"]
    if query in forbidden_names:
        yield view.issue(
            NAME, ("query", "name"), f"{query!r} is both the query item and forbidden", code="SC107"
        )


def check_field_names_pass_the_guard(view: SpecView) -> Iterator[SpecIssue]:
    """No field name carries a forbidden item or a condition's name as the state guard reads it
    (folded: ``next_route_hint`` carries ``next_route``, ``state_aware_hint`` a condition): the guard
    checks every key, so such a field would refuse every state at run time."""
    contract = view.data(NAME)
    conditions = view.data("conditions")["conditions"]
    guard = StateGuard(
        GuardVocabulary(
            forbidden=tuple((f["id"], tuple(f["aliases"])) for f in contract["forbidden"]),
            condition_names=tuple(c["id"] for c in conditions if c.get("retrieval_query") != "none"),
            condition_codes=tuple(c["code"] for c in conditions),
        )
    )
    for index, field in enumerate(contract["allowed"]):
        found = guard.forbidden_item_in(str(field["name"]))
        if found is not None:
            yield view.issue(
                NAME,
                ("allowed", index, "name"),
                f"state field {field['name']!r} carries forbidden item {found} "
                "(the guard refuses it as a key, so every state would be refused)",
                code="SC116",
            )


def check_identifier_pattern(view: SpecView) -> Iterator[SpecIssue]:
    """The identifier pattern is a valid, anchored regular expression."""
    pattern = view.data(NAME)["identifier_pattern"]
    try:
        re.compile(pattern)
    except re.error as err:
        yield view.issue(
            NAME, ("identifier_pattern",), f"not a valid regular expression: {err}", code="SC108"
        )
        return
    if not (pattern.startswith("^") and pattern.endswith("$")):
        yield view.issue(
            NAME,
            ("identifier_pattern",),
            "must be anchored with ^ and $ so free text cannot ride in",
            code="SC109",
        )


def check_serialization_conditions(view: SpecView) -> Iterator[SpecIssue]:
    """State JSON goes exactly to the conditions that retrieve with the original query plus state."""
    applies_to = view.data(NAME)["serialization"]["applies_to"]
    conditions = view.data("conditions")["conditions"]
    known = {c["id"] for c in conditions}
    with_state = {c["id"] for c in conditions if c["retrieval_query"] == "original_plus_state"}
    for index, condition_id in enumerate(applies_to):
        if condition_id not in known:
            yield view.issue(
                NAME,
                ("serialization", "applies_to", index),
                f"unknown condition {condition_id!r}",
                code="SC110",
            )
        elif condition_id not in with_state:
            yield view.issue(
                NAME,
                ("serialization", "applies_to", index),
                f"condition {condition_id!r} does not retrieve with original_plus_state, "
                "so the state JSON must not reach it",
                code="SC111",
            )
    for condition_id in sorted(with_state - set(applies_to)):
        yield view.issue(
            NAME,
            ("serialization", "applies_to"),
            f"condition {condition_id!r} retrieves with original_plus_state but is not listed",
            at_key=True,
            code="SC112",
        )
