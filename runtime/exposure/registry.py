"""The exposure-policy registry: each policy kind registers itself where it is defined.

A kind is registered with the shape the compiler checks conditions against (what it retrieves with,
whether it ranks, the refresh modes it implements, the first being the default) and the parameter
model of its condition's ``params``::

    @register_policy("static_topk", retrieval_query="original", ranks=True)
    def build(condition: ConditionSpec, inputs: PolicyInputs, params: BaseModel) -> ExposurePolicy: ...

The built-in kinds are the modules of ``runtime/exposure/kinds/`` (discovered; 0.14's five first, in
the order its frozen conditions schema lists them). The policy vocabulary and a successor's conditions
schema enum are derived from here (``policy_kinds``); nothing else lists the kinds.

The engine hands each constructor only what that kind may use through ``PolicyInputs``: static kinds
take the static retriever, the state-aware kind also the research retriever, FULL the catalog's route
IDs, ORACLE the task's required routes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar

from pydantic import BaseModel, ValidationError

from runtime.core.errors import SchemaRouterError
from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONValue
from runtime.core.registry import Registry
from runtime.exposure.policies import ExposurePolicy
from runtime.retrieval import StateAwareRetriever, StaticRetriever
from runtime.spec_model.conditions import ConditionSpec, RefreshSpec

RetrievalQuery = Literal["original", "original_plus_state", "none"]

# 0.14's kinds, in the order of its frozen conditions schema's enum; other kinds follow by module name.
BUILTIN_ORDER = (
    "static_topk",
    "progressive_widening",
    "state_refresh",
    "full_catalog",
    "oracle_required_routes",
)


class NoPolicyParams(FrozenModel):
    """A kind without parameters: its condition's ``params`` must be empty."""


@dataclass(frozen=True)
class PolicyInputs:
    """Everything a policy constructor may draw from; each kind takes only its part."""

    static: StaticRetriever
    research: StateAwareRetriever
    catalog_route_ids: Iterable[str]
    required_route_ids: Iterable[str]


PolicyFactory = Callable[[ConditionSpec, PolicyInputs, BaseModel], ExposurePolicy]
F = TypeVar("F", bound=PolicyFactory)


@dataclass(frozen=True)
class RegisteredPolicy:
    """A registry entry: the kind, its factory and the shape a condition of this kind must have."""

    kind: str
    factory: PolicyFactory
    retrieval_query: RetrievalQuery
    ranks: bool
    refresh_modes: tuple[str, ...]  # empty: the kind never refreshes; the first is its default
    params: type[BaseModel]
    summary: str

    @property
    def default_mode(self) -> str | None:
        return self.refresh_modes[0] if self.refresh_modes else None


# The built-in kinds are the modules of ``runtime/exposure/kinds/`` (0.14's five first, in their frozen
# order); installed packages add theirs through the ``schemarouter.policies`` entry points.
POLICIES: Registry[RegisteredPolicy] = Registry(
    "exposure policy", group="policies", package="runtime.exposure.kinds", first=BUILTIN_ORDER
)


def register_policy(
    kind: str,
    *,
    retrieval_query: RetrievalQuery,
    ranks: bool,
    refresh_modes: tuple[str, ...] = (),
    params: type[BaseModel] = NoPolicyParams,
) -> Callable[[F], F]:
    """Register the decorated factory under ``kind``; the kind must be new."""

    def wrap(factory: F) -> F:
        doc = (factory.__doc__ or "").strip().splitlines()
        entry = RegisteredPolicy(
            kind, factory, retrieval_query, ranks, tuple(refresh_modes), params, doc[0] if doc else ""
        )
        POLICIES.add(kind, entry, module=factory.__module__)
        return factory

    return wrap


def unregister_policy(kind: str) -> None:
    """Remove ``kind`` (tests that register a kind of their own clean up with this)."""
    POLICIES.remove(kind)


def policy_kinds() -> tuple[str, ...]:
    """Every registered kind: 0.14's five in their frozen order, then the others by registration."""
    names = [e.name for e in POLICIES.entries()]
    first = [k for k in BUILTIN_ORDER if k in names]
    return (*first, *(k for k in names if k not in BUILTIN_ORDER))


def get_policy(kind: str) -> RegisteredPolicy:
    """The registry entry of ``kind``; an unknown kind is one clear error line."""
    if kind not in POLICIES:
        known = ", ".join(policy_kinds())
        raise SchemaRouterError(f"unknown exposure policy {kind!r}; known: {known}")
    return POLICIES.get(kind)


def parse_policy_params(
    kind: str, params: Mapping[str, JSONValue] | None, *, origin: str = "params"
) -> BaseModel:
    """Validate a condition's ``params`` with its kind's model; each problem becomes one error line."""
    entry = get_policy(kind)
    try:
        return entry.params.model_validate(dict(params or {}))
    except ValidationError as err:
        lines = [
            f"{origin}.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
            if e["loc"]
            else f"{origin}: {e['msg']}"
            for e in err.errors(include_url=False)
        ]
        raise SchemaRouterError("\n".join(lines)) from None


def build_policy(condition: ConditionSpec, inputs: PolicyInputs) -> ExposurePolicy:
    """``condition`` is a compiled condition spec (``policy``, ``initial_k``, ``refresh``, ``params``)."""
    try:
        entry = get_policy(condition.policy)
    except SchemaRouterError as err:
        raise SchemaRouterError(f"condition {condition.id}: {err}") from None
    params = parse_policy_params(
        condition.policy, condition.params, origin=f"condition {condition.id}.params"
    )
    return entry.factory(condition, inputs, params)


def needs_initial_k(c: ConditionSpec) -> int:
    if c.initial_k is None:  # the compiler requires initial_k of every ranking policy
        raise SchemaRouterError(f"condition {c.id}: policy {c.policy} needs initial_k")
    return c.initial_k


def needs_refresh(c: ConditionSpec) -> RefreshSpec:
    if c.refresh is None:  # the compiler requires a refresh block of every refreshing policy
        raise SchemaRouterError(f"condition {c.id}: policy {c.policy} needs a refresh block")
    return c.refresh
