"""The catalog as agents may use it, with its lookups built once per catalog (the engine keeps one per
catalog size), so building an agent costs nothing per catalog entry."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from runtime.agents.reference import RouteFeatures
from runtime.catalog.model import Endpoint


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
