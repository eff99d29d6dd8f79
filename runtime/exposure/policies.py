"""Exposure policies. Each is built for one episode and driven by the engine:

1. ``start(query)`` once, before the first model turn;
2. ``after_tool_turn(state)`` once after every completed or failed tool turn;
3. ``exposed`` and ``ranking_top5`` before every model turn.

The static policies hold a static retriever only: there is no parameter or attribute through which
observable state could reach their retrieval. ``after_tool_turn`` of a static policy ignores the
state's content and reads only the task-incomplete flag, which the seed's trigger names.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from schemarouter.runtime.retrieval import RetrievalCall, StateAwareRetriever, StaticRetriever
from schemarouter.runtime.state import ObservableState


class ExposurePolicy(Protocol):
    @property
    def exposed(self) -> tuple[str, ...]: ...

    @property
    def ranking_top5(self) -> tuple[str, ...] | None: ...

    def start(self, query: str) -> list[RetrievalCall]: ...

    def after_tool_turn(self, task_incomplete: bool, state: ObservableState) -> list[RetrievalCall]: ...


class _TurnGuard:
    """Enforces the seed's limits: at most one refresh per tool turn, a budget per episode."""

    def __init__(self, max_per_episode: int):
        self.max_per_episode = max_per_episode
        self.used = 0

    def allow(self) -> bool:
        if self.used >= self.max_per_episode:
            return False
        self.used += 1
        return True


class _HeldExposure:
    """A policy that shows the first k of its latest ranking and remembers that ranking's top 5."""

    _exposed: tuple[str, ...] = ()
    _top5: tuple[str, ...] = ()

    @property
    def exposed(self) -> tuple[str, ...]:
        return self._exposed

    @property
    def ranking_top5(self) -> tuple[str, ...] | None:
        return self._top5

    def _hold(self, call: RetrievalCall, k: int) -> list[RetrievalCall]:
        self._exposed = tuple(call.route_ids[:k])
        self._top5 = tuple(call.route_ids[:5])
        return [call]


class StaticTopK(_HeldExposure):
    """SR-5-STATIC: one retrieval on the original query; its top k are exposed for the whole episode."""

    def __init__(self, retriever: StaticRetriever, *, initial_k: int):
        self._retriever = retriever
        self._k = initial_k

    def start(self, query: str) -> list[RetrievalCall]:
        return self._hold(self._retriever.rank(query, depth=self._k), self._k)

    def after_tool_turn(self, task_incomplete: bool, state: ObservableState) -> list[RetrievalCall]:
        return []


class ProgressiveWidening:
    """SR-PROGRESSIVE-STATIC: the original query's ranking, widened cumulatively by k per tool turn."""

    def __init__(
        self, retriever: StaticRetriever, *, initial_k: int, k_per_refresh: int, max_per_episode: int
    ):
        self._retriever = retriever
        self._initial_k = initial_k
        self._step = k_per_refresh
        self._guard = _TurnGuard(max_per_episode)
        self._ranking: tuple[str, ...] = ()
        self._width = 0

    @property
    def exposed(self) -> tuple[str, ...]:
        return self._ranking[: self._width]

    @property
    def ranking_top5(self) -> tuple[str, ...] | None:
        return self._ranking[:5]

    @property
    def widenings(self) -> int:
        return self._guard.used

    def start(self, query: str) -> list[RetrievalCall]:
        depth = self._initial_k + self._step * self._guard.max_per_episode
        call = self._retriever.rank(query, depth=depth)
        self._ranking = tuple(call.route_ids)
        self._width = self._initial_k
        return [call]

    def after_tool_turn(self, task_incomplete: bool, state: ObservableState) -> list[RetrievalCall]:
        if task_incomplete and self._guard.allow():
            self._width += self._step
        return []


class StateRefresh(_HeldExposure):
    """SR-5-STATE-AWARE: top k of the original query, then refreshes with query + canonical state."""

    def __init__(
        self,
        static: StaticRetriever,
        research: StateAwareRetriever,
        *,
        initial_k: int,
        k_per_refresh: int,
        max_per_episode: int,
    ):
        self._static = static
        self._research = research
        self._initial_k = initial_k
        self._k = k_per_refresh
        self._guard = _TurnGuard(max_per_episode)
        self._query = ""

    @property
    def refreshes(self) -> int:
        return self._guard.used

    def start(self, query: str) -> list[RetrievalCall]:
        self._query = query
        return self._hold(self._static.rank(query, depth=self._initial_k), self._initial_k)

    def after_tool_turn(self, task_incomplete: bool, state: ObservableState) -> list[RetrievalCall]:
        if not (task_incomplete and self._guard.allow()):
            return []
        return self._hold(self._research.rank(self._query, state, k=self._k), self._k)


class FullCatalog:
    """FULL: the whole catalog every turn, in route_id order; no retrieval."""

    def __init__(self, route_ids: Iterable[str]):
        self._exposed = tuple(sorted(route_ids))

    @property
    def exposed(self) -> tuple[str, ...]:
        return self._exposed

    @property
    def ranking_top5(self) -> tuple[str, ...] | None:
        return None

    def start(self, query: str) -> list[RetrievalCall]:
        return []

    def after_tool_turn(self, task_incomplete: bool, state: ObservableState) -> list[RetrievalCall]:
        return []


class OracleRequired(FullCatalog):
    """ORACLE: exactly the task's required routes, in route_id order; no retrieval."""
