"""progressive_widening (SR-PROGRESSIVE-STATIC): the original query's ranking, widened per tool turn."""

from __future__ import annotations

from pydantic import BaseModel

from runtime.exposure.policies import ExposurePolicy, TurnGuard
from runtime.exposure.registry import (
    PolicyInputs,
    needs_initial_k,
    needs_refresh,
    register_policy,
)
from runtime.retrieval import RetrievalCall, StaticRetriever
from runtime.spec_model.conditions import ConditionSpec
from runtime.state import ObservableState


class ProgressiveWidening:
    """SR-PROGRESSIVE-STATIC: the original query's ranking, widened cumulatively by k per tool turn."""

    def __init__(
        self, retriever: StaticRetriever, *, initial_k: int, k_per_refresh: int, max_per_episode: int
    ):
        self._retriever = retriever
        self._initial_k = initial_k
        self._step = k_per_refresh
        self._guard = TurnGuard(max_per_episode)
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


@register_policy(
    "progressive_widening", retrieval_query="original", ranks=True, refresh_modes=("cumulative",)
)
def build(condition: ConditionSpec, inputs: PolicyInputs, params: BaseModel) -> ExposurePolicy:
    """The original query ranked once, widened by k_per_refresh after each incomplete tool turn."""
    r = needs_refresh(condition)
    return ProgressiveWidening(
        inputs.static,
        initial_k=needs_initial_k(condition),
        k_per_refresh=r.k_per_refresh,
        max_per_episode=r.max_per_episode,
    )
