"""Semantic checks of conditions.yaml against the protocol: its conditions and their limits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from compiler.issues import SpecIssue
from compiler.protocol_file import protocol_of
from compiler.semantic_view import SpecView, duplicates
from runtime.core.errors import SchemaRouterError
from runtime.exposure.registry import get_policy, parse_policy_params, policy_kinds

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
    "CO116": "… is not a registered exposure policy (known: …)",
    "CO117": "params: … (the policy kind's parameters)",
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
    """Each condition names a registered kind and has the retrieval query, initial_k and refresh that
    kind's registration states, and nothing else."""
    for index, condition in enumerate(view.data(NAME)["conditions"]):
        where = ("conditions", index)
        try:
            kind = get_policy(condition["policy"])
        except SchemaRouterError:
            yield view.issue(
                NAME,
                (*where, "policy"),
                f"{condition['policy']!r} is not a registered exposure policy "
                f"(known: {', '.join(policy_kinds())})",
                code="CO116",
            )
            continue
        yield from _shape_issues(view, where, condition, kind.retrieval_query, kind.ranks, kind.refresh_modes)
        try:
            parse_policy_params(kind.kind, condition.get("params"), origin="params")
        except SchemaRouterError as err:
            for line in str(err).splitlines():
                yield view.issue(NAME, (*where, "params"), line.removeprefix("params: "), code="CO117")


def _shape_issues(
    view: SpecView,
    where: tuple[str, int],
    condition: dict[str, Any],
    query: str,
    ranks: bool,
    modes: tuple[str, ...],
) -> Iterator[SpecIssue]:
    policy = condition["policy"]
    if condition["retrieval_query"] != query:
        yield view.issue(
            NAME,
            (*where, "retrieval_query"),
            f"policy {policy} retrieves with {query!r}, not {condition['retrieval_query']!r}",
            code="CO104",
        )
    if ranks and "initial_k" not in condition:
        yield view.issue(NAME, where, f"policy {policy} needs initial_k", at_key=True, code="CO105")
    if not ranks and "initial_k" in condition:
        yield view.issue(
            NAME, (*where, "initial_k"), f"policy {policy} does not rank", at_key=True, code="CO106"
        )
    if modes and "refresh" not in condition:
        yield view.issue(NAME, where, f"policy {policy} needs refresh", at_key=True, code="CO107")
    if not modes and "refresh" in condition:
        yield view.issue(
            NAME, (*where, "refresh"), f"policy {policy} does not refresh", at_key=True, code="CO108"
        )
    refresh = condition.get("refresh")
    if refresh and modes and refresh["mode"] not in modes:
        yield view.issue(
            NAME,
            (*where, "refresh", "mode"),
            f"policy {policy} is {' or '.join(modes)}, not {refresh['mode']}",
            code="CO109",
        )


def _bound(protocol_binds: list[str] | None, condition: dict[str, Any], has: str) -> bool:
    """Whether a limit binds ``condition``: the protocol's list, or (none given) every condition that
    has the limited entry, which is 0.14's reading."""
    return has in condition if protocol_binds is None else condition["id"] in protocol_binds


def check_condition_limits(view: SpecView) -> Iterator[SpecIssue]:
    """Each condition the protocol binds (default: every ranked one) starts at the protocol's top k,
    and each bound refresh stays within its bounds."""
    protocol = protocol_of(view)
    limits = protocol.limits
    for index, condition in enumerate(view.data(NAME)["conditions"]):
        where = ("conditions", index)
        if (
            _bound(protocol.bound_by("initial_k"), condition, "initial_k")
            and "initial_k" in condition
            and condition["initial_k"] != limits["initial_k"]
        ):
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
            if not _bound(protocol.bound_by(limit_key), condition, "refresh"):
                continue
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
