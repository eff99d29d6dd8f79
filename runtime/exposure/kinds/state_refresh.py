"""state_refresh (SR-5-STATE-AWARE): top k of the original query, then refreshes with query + state.

The refresh variants are condition parameters (``refresh`` in conditions.yaml), all deterministic:

- ``mode: replace`` (0.14): the refresh's k routes are the exposure;
- ``mode: add``: the refresh's routes not yet exposed join the exposure, in rank order; past ``cap``
  routes the oldest exposed are dropped first;
- ``mode: replace_keep``: the refresh's routes are the exposure, after the kept ones: the top
  ``keep.original_top`` of the original query's ranking, and (``keep.last_attempted``) the state's
  last attempted route if it was exposed; a kept route is not repeated among the new ones;
- ``cursor: true``: the n-th refresh with the same input (query and state, apart from a declared
  field derived from ``attempt.count``) shows page n of its ranking (ranks n*k+1 .. (n+1)*k), so a
  second block shows the next page, not the same one.

With the defaults (replace, no cursor) it behaves byte for byte as 0.14's SR-5-STATE-AWARE.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from runtime.exposure.policies import ExposurePolicy, HeldExposure, TurnGuard
from runtime.exposure.registry import (
    PolicyInputs,
    needs_initial_k,
    needs_refresh,
    register_policy,
)
from runtime.retrieval import RetrievalCall, StateAwareRetriever, StaticRetriever
from runtime.spec_model.conditions import ConditionSpec, KeepRule
from runtime.state import ObservableState


def _cursor_key(state: ObservableState) -> str:
    """The refresh input the cursor pages on: the state without its attempt counter (which a field
    derived from ``attempt.count`` raises on every attempt, so no two inputs would ever be the same)."""
    data = state.model_dump(mode="json")
    for f in state.layout.fields:
        if f.source.code == "attempt.count":
            data.pop(f.name, None)
    return json.dumps(data, sort_keys=True)


def _unique(routes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(routes))


class StateRefresh(HeldExposure):
    """SR-5-STATE-AWARE: top k of the original query, then refreshes with query + canonical state."""

    def __init__(
        self,
        static: StaticRetriever,
        research: StateAwareRetriever,
        *,
        initial_k: int,
        k_per_refresh: int,
        max_per_episode: int,
        mode: str = "replace",
        cap: int | None = None,
        keep: KeepRule | None = None,
        cursor: bool = False,
    ):
        self._static = static
        self._research = research
        self._initial_k = initial_k
        self._k = k_per_refresh
        self._guard = TurnGuard(max_per_episode)
        self._mode = mode
        self._cap = cap
        self._keep = keep or KeepRule()
        self._cursor = cursor
        self._pages: dict[str, int] = {}  # refresh input -> refreshes already made with it
        self._query = ""
        self._original: tuple[str, ...] = ()

    @property
    def refreshes(self) -> int:
        return self._guard.used

    def start(self, query: str) -> list[RetrievalCall]:
        self._query = query
        depth = max(self._initial_k, self._keep.original_top)
        call = self._static.rank(query, depth=depth)
        self._original = tuple(call.route_ids)
        return self._hold(call, self._initial_k)

    def after_tool_turn(self, task_incomplete: bool, state: ObservableState) -> list[RetrievalCall]:
        if not (task_incomplete and self._guard.allow()):
            return []
        if self._mode == "replace" and not self._cursor:
            return self._hold(self._research.rank(self._query, state, k=self._k), self._k)  # 0.14
        page = self._next_page(state)
        call = self._research.rank(self._query, state, k=self._k * (page + 1))
        ranked = tuple(call.route_ids[page * self._k :])
        self._top5 = ranked[:5]
        self._exposed = self._combine(ranked[: self._k], state)
        return [call]

    def _next_page(self, state: ObservableState) -> int:
        if not self._cursor:
            return 0
        key = _cursor_key(state)
        page = self._pages.get(key, 0)
        self._pages[key] = page + 1
        return page

    def _combine(self, fresh: tuple[str, ...], state: ObservableState) -> tuple[str, ...]:
        if self._mode == "add":
            merged = _unique((*self._exposed, *fresh))
            return merged[-self._cap :] if self._cap is not None else merged
        if self._mode == "replace_keep":
            kept = list(self._original[: self._keep.original_top])
            attempted = state.value_of("attempt.route_id")
            if self._keep.last_attempted and attempted and attempted in self._exposed:
                kept.append(str(attempted))
            return _unique((*kept, *fresh))
        return fresh


@register_policy(
    "state_refresh",
    retrieval_query="original_plus_state",
    ranks=True,
    refresh_modes=("replace", "add", "replace_keep"),
)
def build(condition: ConditionSpec, inputs: PolicyInputs, params: BaseModel) -> ExposurePolicy:
    """Top initial_k of the original query; refreshes with the query and the canonical state JSON."""
    r = needs_refresh(condition)
    return StateRefresh(
        inputs.static,
        inputs.research,
        initial_k=needs_initial_k(condition),
        k_per_refresh=r.k_per_refresh,
        max_per_episode=r.max_per_episode,
        mode=r.mode,
        cap=r.cap,
        keep=r.keep,
        cursor=r.cursor,
    )
