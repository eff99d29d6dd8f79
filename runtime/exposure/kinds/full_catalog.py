"""full_catalog (FULL): the whole catalog every turn; no retrieval."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from runtime.exposure.policies import ExposurePolicy
from runtime.exposure.registry import PolicyInputs, register_policy
from runtime.retrieval import RetrievalCall
from runtime.spec_model.conditions import ConditionSpec
from runtime.state import ObservableState


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


@register_policy("full_catalog", retrieval_query="none", ranks=False)
def build(condition: ConditionSpec, inputs: PolicyInputs, params: BaseModel) -> ExposurePolicy:
    """The whole catalog, in route_id order."""
    return FullCatalog(inputs.catalog_route_ids)
