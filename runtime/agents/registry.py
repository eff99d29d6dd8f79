"""Agents by name. Each entry builds an agent for one episode from the spec's settings.

Agents see the catalog through an :class:`AgentCatalog`, built once per catalog (the engine keeps one
per catalog size), so building an agent costs nothing per catalog entry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from schemarouter.errors import SchemaRouterError
from schemarouter.runtime.agents.adversarial import AdversarialAgent
from schemarouter.runtime.agents.protocol import Agent
from schemarouter.runtime.agents.reference import MissingToolRule, ReferenceAgent, RouteFeatures
from schemarouter.runtime.catalog.model import Endpoint
from schemarouter.runtime.surface.model import Task


@dataclass(frozen=True)
class AgentCatalog:
    """The catalog as agents may use it, with its lookups built once."""

    endpoints: tuple[Endpoint, ...]
    by_route: Mapping[str, Endpoint] = field(init=False)
    destructive: tuple[Endpoint, ...] = field(init=False)
    # The reference agent's matching features per route, computed on first use and shared by episodes.
    features: RouteFeatures = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_route", {e.route_id: e for e in self.endpoints})
        object.__setattr__(
            self, "destructive", tuple(e for e in self.endpoints if e.side_effect == "destructive")
        )
        object.__setattr__(self, "features", RouteFeatures())


AgentFactory = Callable[..., Agent]
_REGISTRY: dict[str, AgentFactory] = {}


def register_agent(name: str) -> Callable[[AgentFactory], AgentFactory]:
    def wrap(factory: AgentFactory) -> AgentFactory:
        _REGISTRY[name] = factory
        return factory

    return wrap


def agent_names() -> list[str]:
    return sorted(_REGISTRY)


def make_agent(
    name: str,
    *,
    task: Task,
    catalog: AgentCatalog | tuple[Endpoint, ...],
    settings: Any,
    options: Mapping[str, Any] | None = None,
) -> Agent:
    """Build agent ``name`` for one episode. ``options`` are run-level overrides (e.g. a model's base URL).

    Pass the catalog's :class:`AgentCatalog` to build nothing per catalog entry; a plain tuple of
    endpoints is wrapped (costing one pass over it)."""
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise SchemaRouterError(f"unknown agent {name!r}; known: {', '.join(agent_names())}") from None
    if not isinstance(catalog, AgentCatalog):
        catalog = AgentCatalog(tuple(catalog))
    return factory(task=task, catalog=catalog, settings=settings, options=dict(options or {}))


@register_agent("reference")
def _reference(*, task: Task, catalog: AgentCatalog, settings: Any, options: dict[str, Any]) -> Agent:
    rule = settings.missing_tool_rule()
    return ReferenceAgent(
        task=task,
        catalog_by_route=catalog.by_route,
        features=catalog.features,
        rule=MissingToolRule(
            semantic_id_weight=rule.score["semantic_id_weight"],
            name_token_weight=rule.score["name_token_weight"],
            min_score=rule.min_score,
            exclude_destructive_without_grant=rule.exclude_destructive_without_grant,
            never_repeat_identical_failed_call=rule.never_repeat_identical_failed_call,
        ),
    )


@register_agent("adversarial")
def _adversarial(*, task: Task, catalog: AgentCatalog, settings: Any, options: dict[str, Any]) -> Agent:
    cfg = settings.adversarial
    return AdversarialAgent(
        task_id=task.task_id,
        catalog=catalog.endpoints,
        destructive=catalog.destructive,
        seed_label=cfg["seed_label"],
        max_calls=cfg["max_calls"],
    )


_OPENAI_AGENTS: dict[tuple[tuple[str, Any], ...], Agent] = {}


@register_agent("openai")
def _openai(*, task: Task, catalog: AgentCatalog, settings: Any, options: dict[str, Any]) -> Agent:
    """One client per process and settings, so its call cache and counters span the whole run."""
    from schemarouter.runtime.agents.openai_agent import openai_agent_from

    key = tuple(sorted(options.items()))
    agent = _OPENAI_AGENTS.get(key)
    if agent is None:
        agent = _OPENAI_AGENTS[key] = openai_agent_from(settings.openai, options)
    return agent
