"""Semantic checks of a condition's protocol variants: its refresh rules and its own retriever.

A refresh variant (``mode`` other than the policy kind's default, ``cursor``, ``keep``, ``cap``) is a
protocol value: the protocol must allow it for that condition (``conditions.variants``; none listed,
only the default, which is 0.14's reading), and the condition's ``description`` must state each rule
it uses in the words below, so the text a reader sees is the rule that runs. A condition's ``retriever``
must name a registered strategy with parameters that fit it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, TypedDict

from compiler.issues import SpecIssue
from compiler.protocol_file import RefreshVariants, protocol_of
from compiler.semantic_view import SpecView
from runtime.core.errors import SchemaRouterError
from runtime.exposure.registry import get_policy
from runtime.retrieval.strategy import parse_params, strategy_codes
from runtime.state.sources import source_code

NAME = "conditions"

PROBLEMS: Final[dict[str, str]] = {
    "CO113": "refresh … is not a variant the protocol allows … (allowed: …)",
    "CO114": "the description does not state the refresh rule '…'",
    "CO115": "refresh.… goes only with mode …",
    "CO118": "retriever: … (the condition's retrieval strategy)",
    "CO119": "keep.last_attempted needs the state contract to declare last_attempted_route_id",
}

# refresh key -> the only mode it goes with
_MODE_OF = {"cap": "add", "keep": "replace_keep"}


class KeepWords(TypedDict, total=False):
    """The parts of a refresh's ``keep`` a description must state (conditions.yaml)."""

    original_top: int
    last_attempted: bool


class RefreshWords(TypedDict, total=False):
    """The parts of a condition's ``refresh`` whose non-default values a description must state."""

    mode: str
    cap: int | None
    keep: KeepWords | None
    cursor: bool


def rule_phrases(refresh: RefreshWords, default_mode: str | None) -> list[str]:
    """The words a description must contain for each non-default rule of ``refresh``."""
    phrases = []
    if refresh.get("mode") != default_mode:
        phrases.append(f"mode {refresh['mode']}")
    if refresh.get("cap") is not None:
        phrases.append(f"cap {refresh['cap']}")
    keep: KeepWords = refresh.get("keep") or {}
    if keep.get("original_top"):
        phrases.append(f"keep top {keep['original_top']}")
    if keep.get("last_attempted"):
        phrases.append("keep last attempted")
    if refresh.get("cursor"):
        phrases.append("cursor")
    return phrases


def _kind_default(condition: dict[str, Any]) -> str | None:
    try:
        return get_policy(condition["policy"]).default_mode
    except SchemaRouterError:  # CO116 reports it
        return None


def check_refresh_variants(view: SpecView) -> Iterator[SpecIssue]:
    """Each variant a condition uses is allowed by the protocol, fits its mode, and is described."""
    protocol = protocol_of(view)
    for index, condition in enumerate(view.data(NAME)["conditions"]):
        refresh: RefreshWords | None = condition.get("refresh")  # conditions.yaml passed its schema
        if not isinstance(refresh, dict):
            continue
        where = ("conditions", index, "refresh")
        default = _kind_default(condition)
        allowed = protocol.variants_of(condition["id"])
        yield from _protocol_issues(view, where, condition["id"], refresh, default, allowed)
        for key, mode in _MODE_OF.items():
            if key in refresh and refresh["mode"] != mode:
                yield view.issue(
                    NAME, (*where, key), f"refresh.{key} goes only with mode {mode}", code="CO115"
                )
        for phrase in rule_phrases(refresh, default):
            if phrase not in condition["description"]:
                yield view.issue(
                    NAME,
                    ("conditions", index, "description"),
                    f"the description does not state the refresh rule {phrase!r}",
                    code="CO114",
                )


def _protocol_issues(
    view: SpecView,
    where: tuple[str, int, str],
    condition_id: str,
    refresh: RefreshWords,
    default: str | None,
    allowed: RefreshVariants,
) -> Iterator[SpecIssue]:
    modes = [default, *allowed.get("modes", [])]
    if default is not None and refresh["mode"] not in modes:
        yield view.issue(
            NAME,
            (*where, "mode"),
            f"refresh mode {refresh['mode']} is not a variant the protocol allows {condition_id} "
            f"(allowed: {', '.join(str(m) for m in modes)})",
            code="CO113",
        )
    for key in ("cursor", "keep"):
        if refresh.get(key) and not allowed.get(key, False):
            yield view.issue(
                NAME,
                (*where, key),
                f"refresh {key} is not a variant the protocol allows {condition_id} (allowed: none)",
                code="CO113",
            )
    cap = refresh.get("cap")
    if cap is not None and cap > int(allowed.get("max_cap", 0)):
        yield view.issue(
            NAME,
            (*where, "cap"),
            f"refresh cap {cap} is not a variant the protocol allows {condition_id} "
            f"(allowed: at most {allowed.get('max_cap', 0)})",
            code="CO113",
        )


def check_keep_needs_the_field(view: SpecView) -> Iterator[SpecIssue]:
    """Keeping the last attempted route reads the state's field derived from attempt.route_id (#25's
    last_attempted_route_id): the contract must declare one, or the rule would silently keep nothing."""
    allowed = [a for a in view.data("state_contract").get("allowed", []) if isinstance(a, dict)]
    if any(source_code(str(a.get("name")), a.get("source")) == "attempt.route_id" for a in allowed):
        return
    for index, condition in enumerate(view.data(NAME)["conditions"]):
        keep = (condition.get("refresh") or {}).get("keep") or {}
        if isinstance(keep, dict) and keep.get("last_attempted"):
            yield view.issue(
                NAME,
                ("conditions", index, "refresh", "keep", "last_attempted"),
                "keep.last_attempted needs the state contract to declare a field derived from "
                "attempt.route_id (such as last_attempted_route_id)",
                code="CO119",
            )


def check_condition_retrievers(view: SpecView) -> Iterator[SpecIssue]:
    """A condition's own ``retriever`` names a registered strategy whose parameters fit."""
    for index, condition in enumerate(view.data(NAME)["conditions"]):
        retriever = condition.get("retriever")
        if not isinstance(retriever, dict):
            continue
        where = ("conditions", index, "retriever")
        code = retriever.get("code")
        if code not in strategy_codes():
            yield view.issue(
                NAME,
                (*where, "code"),
                f"{code!r} is not a registered retrieval strategy (known: {', '.join(strategy_codes())})",
                code="CO118",
            )
            continue
        try:
            parse_params(str(code), retriever.get("params"), origin="params")
        except SchemaRouterError as err:
            for line in str(err).splitlines():
                yield view.issue(NAME, (*where, "params"), line, code="CO118")
