"""Agents by stable name: ``@register_agent("name")`` registers a factory where the agent is defined.

Every module of this package is imported on first use (sorted by name), so a new agent is its module
(the factory and the agent), its test, and its section in an experiment's agent.yaml: no central list
to edit. A factory gets the episode's task, the :class:`AgentCatalog` (lookups built once per catalog),
its own section of agent.yaml, and the run's options (e.g. a model's base URL).

An agent the experiment's agent.yaml does not name may still run when its registration declares
``defaults``: those settings are its section, and they are recorded in the run manifest as the run's
agent configuration (it is then not one of the experiment's preregistered agents).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from runtime.agents.protocol import Agent
from runtime.catalog.model import Endpoint
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONValue
from runtime.core.registry import Registry
from runtime.surface.model import Task

if TYPE_CHECKING:
    from runtime.agents.catalog_view import AgentCatalog

# Modules of the package that define no agent.
_NOT_AGENTS = frozenset(
    {
        "registry",
        "protocol",
        "catalog_view",
        "model_cache",
        "http_client",
        "chat_response",
        "chat_shapes",
        "transcript",
        "server_templates",
        "traffic",
        "single_flight",
    }
)


class AgentFactory(Protocol):
    def __call__(
        self,
        *,
        task: Task,
        catalog: AgentCatalog,
        settings: Mapping[str, JSONValue],
        options: dict[str, JSONValue],
    ) -> Agent: ...


@dataclass(frozen=True)
class RegisteredAgent:
    name: str
    factory: AgentFactory
    defaults: Mapping[str, JSONValue] | None  # settings when agent.yaml has no section for it


# The built-in agents are the modules of this package; installed packages add theirs through the
# ``schemarouter.agents`` entry points.
AGENTS: Registry[RegisteredAgent] = Registry(
    "agent", group="agents", package="runtime.agents", skip=_NOT_AGENTS
)


def register_agent(
    name: str, *, defaults: Mapping[str, JSONValue] | None = None
) -> Callable[[AgentFactory], AgentFactory]:
    def wrap(factory: AgentFactory) -> AgentFactory:
        module = str(getattr(factory, "__module__", ""))
        AGENTS.add(name, RegisteredAgent(name, factory, defaults), module=module)
        return factory

    return wrap


def agent_names() -> list[str]:
    return AGENTS.names()


def registered_agent(name: str) -> RegisteredAgent:
    return AGENTS.get(name)


def make_agent(
    name: str,
    *,
    task: Task,
    catalog: AgentCatalog | tuple[Endpoint, ...],
    settings: Mapping[str, JSONValue] | None,
    options: Mapping[str, JSONValue] | None = None,
) -> Agent:
    """Build agent ``name`` for one episode from its agent.yaml section (``settings``; None: its declared
    defaults). Pass the catalog's :class:`AgentCatalog` to build nothing per catalog entry; a plain
    tuple of endpoints is wrapped (costing one pass over it)."""
    from runtime.agents.catalog_view import AgentCatalog

    registered = registered_agent(name)
    section = settings if settings is not None else registered.defaults
    if section is None:
        raise SchemaRouterError(f"agent {name!r} has no section in agent.yaml and declares no defaults")
    if not isinstance(catalog, AgentCatalog):
        catalog = AgentCatalog(tuple(catalog))
    return registered.factory(task=task, catalog=catalog, settings=section, options=dict(options or {}))
