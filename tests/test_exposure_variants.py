"""The refresh variants of state_refresh (mode add / replace_keep, the paging cursor), on scripted
retrievers: each is deterministic, and the defaults are 0.14's replace."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from runtime.exposure import StateRefresh
from runtime.spec_model.conditions import KeepRule
from runtime.state import ObservableState
from runtime.state.declaration import declarations
from runtime.state.guard import install_guard, installed_guard

ORIGINAL = tuple(f"o{i:02d}" for i in range(40))
STATE = ObservableState.initial().with_task_incomplete(True)
OTHER = STATE.with_task_incomplete(False)  # another input: a different canonical state


@dataclass
class Call:
    text: str
    route_ids: tuple[str, ...]


@dataclass
class Static:
    def rank(self, query: str, depth: int) -> Call:
        return Call(query, ORIGINAL[:depth])


@dataclass
class Research:
    """Ranks by the state's text only, so equal inputs give equal rankings (as real strategies do)."""

    depths: list[int] = field(default_factory=list)

    def rank(self, query: str, state: ObservableState, k: int) -> Call:
        self.depths.append(k)
        tag = "a" if state.task_incomplete else "b"
        return Call(query, tuple(f"{tag}{i:02d}" for i in range(k)))


def _attempted(route_id: str) -> ObservableState:
    """A state after a refused attempt at ``route_id``, under a contract that declares a field derived
    from attempt.route_id (named otherwise than #25's, to show the policy reads the source)."""
    before = installed_guard()
    assert before is not None
    optional_route = {"kind": "optional", "items": "route_id"}
    tried = {"name": "tried_route", "type": optional_route, "source": "attempt.route_id"}
    routes = declarations({"allowed": [tried]})
    install_guard(dataclasses.replace(before.vocabulary, fields=(*before.vocabulary.fields, *routes)))
    try:
        state = ObservableState.initial().after_blocked(route_id, "UNEXPOSED")
    finally:
        install_guard(before.vocabulary)
    assert state.tried_route == route_id and state.task_incomplete
    return state


def _policy(research: Research | None = None, **kw: object) -> StateRefresh:
    policy = StateRefresh(
        Static(),  # type: ignore[arg-type]
        research or Research(),  # type: ignore[arg-type]
        initial_k=5,
        k_per_refresh=5,
        max_per_episode=5,
        **kw,  # type: ignore[arg-type]
    )
    policy.start("q")
    return policy


def test_replace_without_cursor_shows_the_same_page_for_the_same_input() -> None:
    policy = _policy()
    policy.after_tool_turn(True, STATE)
    first = policy.exposed
    policy.after_tool_turn(True, STATE)
    assert policy.exposed == first == ("a00", "a01", "a02", "a03", "a04")


def test_the_cursor_pages_on_repeated_input_and_restarts_per_input() -> None:
    research = Research()
    policy = _policy(research, cursor=True)
    pages = []
    for state in (STATE, STATE, OTHER, STATE):
        policy.after_tool_turn(True, state)
        pages.append(policy.exposed)
    assert pages[0] == tuple(f"a{i:02d}" for i in range(5))
    assert pages[1] == tuple(f"a{i:02d}" for i in range(5, 10))  # the next page, not the same one
    assert pages[2] == tuple(f"b{i:02d}" for i in range(5))  # a new input starts at its first page
    assert pages[3] == tuple(f"a{i:02d}" for i in range(10, 15))
    assert research.depths == [5, 10, 5, 15]
    assert policy.ranking_top5 == pages[3]


def test_add_unions_in_rank_order_and_drops_the_oldest_past_the_cap() -> None:
    policy = _policy(mode="add", cap=12, cursor=True)
    assert policy.exposed == ORIGINAL[:5]
    policy.after_tool_turn(True, STATE)
    assert policy.exposed == (*ORIGINAL[:5], *(f"a{i:02d}" for i in range(5)))
    policy.after_tool_turn(True, STATE)
    assert len(policy.exposed) == 12
    assert policy.exposed[-5:] == tuple(f"a{i:02d}" for i in range(5, 10))
    assert policy.exposed[0] == ORIGINAL[3]  # o00..o02 went first


def test_add_never_repeats_a_route() -> None:
    policy = _policy(mode="add", cap=30)
    policy.after_tool_turn(True, STATE)
    policy.after_tool_turn(True, STATE)  # same page again: nothing new joins
    assert len(policy.exposed) == len(set(policy.exposed)) == 10


def test_replace_keep_keeps_the_original_top_and_the_last_attempted_route() -> None:
    research = Research()
    policy = _policy(research, mode="replace_keep", keep=KeepRule(original_top=2, last_attempted=True))
    policy.after_tool_turn(True, _attempted(ORIGINAL[4]))
    assert policy.exposed == (ORIGINAL[0], ORIGINAL[1], ORIGINAL[4], *(f"a{i:02d}" for i in range(5)))


def test_replace_keep_keeps_nothing_not_exposed() -> None:
    policy = _policy(mode="replace_keep", keep=KeepRule(original_top=1, last_attempted=True))
    policy.after_tool_turn(True, _attempted("never.shown"))
    assert policy.exposed == (ORIGINAL[0], *(f"a{i:02d}" for i in range(5)))


def test_variants_are_deterministic() -> None:
    def run() -> list[tuple[str, ...]]:
        policy = _policy(mode="add", cap=9, cursor=True)
        out = []
        for state in (STATE, OTHER, STATE, STATE, OTHER):
            policy.after_tool_turn(True, state)
            out.append(policy.exposed)
        return out

    assert run() == run()
