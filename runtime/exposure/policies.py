"""What every exposure policy is, and the two pieces the built-in kinds share.

Each policy is built for one episode and driven by the engine:

1. ``start(query)`` once, before the first model turn;
2. ``after_tool_turn(state)`` once after every completed or failed tool turn;
3. ``exposed`` and ``ranking_top5`` before every model turn.

The static policies hold a static retriever only: there is no parameter or attribute through which
observable state could reach their retrieval. ``after_tool_turn`` of a static policy ignores the
state's content and reads only the task-incomplete flag, which the seed's trigger names.
The kinds themselves are the modules of ``runtime/exposure/kinds/``.
"""

from __future__ import annotations

from typing import Protocol

from runtime.retrieval import RetrievalCall
from runtime.state import ObservableState


class ExposurePolicy(Protocol):
    @property
    def exposed(self) -> tuple[str, ...]: ...

    @property
    def ranking_top5(self) -> tuple[str, ...] | None: ...

    def start(self, query: str) -> list[RetrievalCall]: ...

    def after_tool_turn(self, task_incomplete: bool, state: ObservableState) -> list[RetrievalCall]: ...


class TurnGuard:
    """Enforces the seed's limits: at most one refresh per tool turn, a budget per episode."""

    def __init__(self, max_per_episode: int):
        self.max_per_episode = max_per_episode
        self.used = 0

    def allow(self) -> bool:
        if self.used >= self.max_per_episode:
            return False
        self.used += 1
        return True


class HeldExposure:
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
