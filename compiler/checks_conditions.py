"""Semantic checks of conditions.yaml against the protocol: its conditions and their limits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from schemarouter.compiler.issues import SpecIssue
from schemarouter.compiler.protocol import protocol_of
from schemarouter.compiler.semantic_view import SpecView, duplicates
from schemarouter.runtime.spec_model.vocabulary import POLICY_SHAPES

# The problems this module reports, by stable code (tests/cases/validation/<code>.yaml shows each).
PROBLEMS: Final[dict[str, str]] = {
    "CO101": "… is not one of the protocol's conditions",
    "CO102": "the protocol's condition … is missing",
    "CO103": "… differs from the protocol's …",
    "CO104": "policy … retrieves with …, not …",
    "CO105": "policy … needs initial_k",
    "CO106": "policy … does not rank",
    "CO107": "policy … needs refresh",
    "CO108": "policy … does not refresh",
    "CO109": "policy … is …, not …",
    "CO110": "… differs from the protocol's start at the top …",
    "CO111": "… is greater than … (the protocol allows at most … …)",
    "CO112": "… differs from …'s …; the two conditions must differ only in what they retrieve with",
}

NAME = "conditions"


# refresh key -> (limits key, what the limit bounds)
_REFRESH_LIMITS = {
    "max_per_tool_turn": ("max_refresh_per_tool_turn", "refreshes per tool turn"),
    "max_per_episode": ("max_refresh_per_episode", "refreshes per episode"),
    "k_per_refresh": ("max_k_per_refresh", "capabilities per refresh"),
}


def check_condition_set(view: SpecView) -> Iterator[SpecIssue]:
    """Exactly the protocol's conditions, with unique ids and codes."""
    conditions = view.data(NAME)["conditions"]
    yield from duplicates(view, NAME, ("conditions",), conditions, "id", "condition")
    yield from duplicates(view, NAME, ("conditions",), conditions, "code", "condition code")
    ids = [c["id"] for c in conditions]
    expected = protocol_of(view).condition_ids
    for index, condition_id in enumerate(ids):
        if condition_id not in expected:
            yield view.issue(
                NAME,
                ("conditions", index, "id"),
                f"{condition_id!r} is not one of the protocol's conditions",
                code="CO101",
            )
    for condition_id in expected:
        if condition_id not in ids:
            yield view.issue(
                NAME,
                ("conditions",),
                f"the protocol's condition {condition_id!r} is missing",
                at_key=True,
                code="CO102",
            )


def check_limits_match_protocol(view: SpecView) -> Iterator[SpecIssue]:
    """The limits block says what the protocol says."""
    limits = view.data(NAME)["limits"]
    for key, value in protocol_of(view).limits.items():
        if limits[key] != value:
            yield view.issue(
                NAME, ("limits", key), f"{limits[key]} differs from the protocol's {value}", code="CO103"
            )


def check_policy_shapes(view: SpecView) -> Iterator[SpecIssue]:
    """Each policy has the retrieval query, initial_k and refresh it needs, and nothing else."""
    for index, condition in enumerate(view.data(NAME)["conditions"]):
        query, ranks, expected_mode = POLICY_SHAPES[condition["policy"]]
        refreshes = expected_mode is not None
        where = ("conditions", index)
        if condition["retrieval_query"] != query:
            yield view.issue(
                NAME,
                (*where, "retrieval_query"),
                f"policy {condition['policy']} retrieves with {query!r}, "
                f"not {condition['retrieval_query']!r}",
                code="CO104",
            )
        if ranks and "initial_k" not in condition:
            yield view.issue(
                NAME, where, f"policy {condition['policy']} needs initial_k", at_key=True, code="CO105"
            )
        if not ranks and "initial_k" in condition:
            yield view.issue(
                NAME,
                (*where, "initial_k"),
                f"policy {condition['policy']} does not rank",
                at_key=True,
                code="CO106",
            )
        if refreshes and "refresh" not in condition:
            yield view.issue(
                NAME, where, f"policy {condition['policy']} needs refresh", at_key=True, code="CO107"
            )
        if not refreshes and "refresh" in condition:
            yield view.issue(
                NAME,
                (*where, "refresh"),
                f"policy {condition['policy']} does not refresh",
                at_key=True,
                code="CO108",
            )
        refresh = condition.get("refresh")
        if refresh and expected_mode and refresh["mode"] != expected_mode:
            yield view.issue(
                NAME,
                (*where, "refresh", "mode"),
                f"policy {condition['policy']} is {expected_mode}, not {refresh['mode']}",
                code="CO109",
            )


def check_condition_limits(view: SpecView) -> Iterator[SpecIssue]:
    """Every ranked condition starts at the protocol's top k; every refresh stays within its bounds."""
    limits = protocol_of(view).limits
    for index, condition in enumerate(view.data(NAME)["conditions"]):
        where = ("conditions", index)
        if "initial_k" in condition and condition["initial_k"] != limits["initial_k"]:
            yield view.issue(
                NAME,
                (*where, "initial_k"),
                f"{condition['initial_k']} differs from the protocol's start at the top "
                f"{limits['initial_k']}",
                code="CO110",
            )
        refresh: dict[str, Any] | None = condition.get("refresh")
        if refresh is None:
            continue
        for key, (limit_key, what) in _REFRESH_LIMITS.items():
            if refresh[key] > limits[limit_key]:
                yield view.issue(
                    NAME,
                    (*where, "refresh", key),
                    f"{refresh[key]} is greater than {limits[limit_key]} (the protocol allows at most "
                    f"{limits[limit_key]} {what})",
                    code="CO111",
                )


def check_shared_trigger(view: SpecView) -> Iterator[SpecIssue]:
    """Static progressive and state-aware share trigger and bounds: they differ in what they retrieve with."""
    by_id = {c["id"]: (i, c) for i, c in enumerate(view.data(NAME)["conditions"])}
    protocol = protocol_of(view)
    if protocol.treatment not in by_id or protocol.comparator not in by_id:
        return
    t_index, treatment = by_id[protocol.treatment]
    _, comparator = by_id[protocol.comparator]
    t_refresh, c_refresh = treatment.get("refresh"), comparator.get("refresh")
    if not t_refresh or not c_refresh:
        return
    for key in ("trigger", "max_per_tool_turn", "max_per_episode", "k_per_refresh"):
        if t_refresh[key] != c_refresh[key]:
            yield view.issue(
                NAME,
                ("conditions", t_index, "refresh", key),
                f"{t_refresh[key]!r} differs from {protocol.comparator}'s {c_refresh[key]!r}; "
                "the two conditions must differ only in what they retrieve with",
                code="CO112",
            )
