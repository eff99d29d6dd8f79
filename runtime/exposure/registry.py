"""Builds a condition's exposure policy from its compiled spec entry.

The registry maps the spec's ``policy`` kind to a constructor. The engine hands each constructor only
what that kind may use: static kinds get a static retriever, the state-aware kind also gets the
research retriever, FULL gets the catalog's route IDs, ORACLE the task's required routes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from schemarouter.errors import SchemaRouterError
from schemarouter.runtime.exposure.policies import (
    ExposurePolicy,
    FullCatalog,
    OracleRequired,
    ProgressiveWidening,
    StateRefresh,
    StaticTopK,
)
from schemarouter.runtime.retrieval import StateAwareRetriever, StaticRetriever
from schemarouter.runtime.spec_model.conditions import ConditionSpec, RefreshSpec


@dataclass(frozen=True)
class PolicyInputs:
    """Everything a policy constructor may draw from; each kind takes only its part."""

    static: StaticRetriever
    research: StateAwareRetriever
    catalog_route_ids: Iterable[str]
    required_route_ids: Iterable[str]


def _k(c: ConditionSpec) -> int:
    if c.initial_k is None:  # the compiler requires initial_k of every ranking policy
        raise SchemaRouterError(f"condition {c.id}: policy {c.policy} needs initial_k")
    return c.initial_k


def _refresh(c: ConditionSpec) -> RefreshSpec:
    if c.refresh is None:  # the compiler requires a refresh block of every refreshing policy
        raise SchemaRouterError(f"condition {c.id}: policy {c.policy} needs a refresh block")
    return c.refresh


def _static(c: ConditionSpec, i: PolicyInputs) -> ExposurePolicy:
    return StaticTopK(i.static, initial_k=_k(c))


def _progressive(c: ConditionSpec, i: PolicyInputs) -> ExposurePolicy:
    r = _refresh(c)
    return ProgressiveWidening(
        i.static, initial_k=_k(c), k_per_refresh=r.k_per_refresh, max_per_episode=r.max_per_episode
    )


def _state(c: ConditionSpec, i: PolicyInputs) -> ExposurePolicy:
    r = _refresh(c)
    return StateRefresh(
        i.static,
        i.research,
        initial_k=_k(c),
        k_per_refresh=r.k_per_refresh,
        max_per_episode=r.max_per_episode,
    )


def _full(c: ConditionSpec, i: PolicyInputs) -> ExposurePolicy:
    return FullCatalog(i.catalog_route_ids)


def _oracle(c: ConditionSpec, i: PolicyInputs) -> ExposurePolicy:
    return OracleRequired(i.required_route_ids)


POLICY_KINDS: dict[str, Callable[[ConditionSpec, PolicyInputs], ExposurePolicy]] = {
    "static_topk": _static,
    "progressive_widening": _progressive,
    "state_refresh": _state,
    "full_catalog": _full,
    "oracle_required_routes": _oracle,
}


def build_policy(condition: ConditionSpec, inputs: PolicyInputs) -> ExposurePolicy:
    """``condition`` is a compiled condition spec (``policy``, ``initial_k``, ``refresh``)."""
    try:
        make = POLICY_KINDS[condition.policy]
    except KeyError:
        raise SchemaRouterError(
            f"condition {condition.id}: unknown exposure policy {condition.policy!r}"
        ) from None
    return make(condition, inputs)
