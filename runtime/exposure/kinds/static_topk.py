"""static_topk (SR-5-STATIC, SR-10-STATIC): one retrieval on the original query, held all episode."""

from __future__ import annotations

from pydantic import BaseModel

from runtime.exposure.policies import ExposurePolicy, HeldExposure
from runtime.exposure.registry import PolicyInputs, needs_initial_k, register_policy
from runtime.retrieval import RetrievalCall, StaticRetriever
from runtime.spec_model.conditions import ConditionSpec
from runtime.state import ObservableState


class StaticTopK(HeldExposure):
    """SR-5-STATIC: one retrieval on the original query; its top k are exposed for the whole episode."""

    def __init__(self, retriever: StaticRetriever, *, initial_k: int):
        self._retriever = retriever
        self._k = initial_k

    def start(self, query: str) -> list[RetrievalCall]:
        return self._hold(self._retriever.rank(query, depth=self._k), self._k)

    def after_tool_turn(self, task_incomplete: bool, state: ObservableState) -> list[RetrievalCall]:
        return []


@register_policy("static_topk", retrieval_query="original", ranks=True)
def build(condition: ConditionSpec, inputs: PolicyInputs, params: BaseModel) -> ExposurePolicy:
    """One retrieval on the original query; its top initial_k for the whole episode."""
    return StaticTopK(inputs.static, initial_k=needs_initial_k(condition))
