"""The episode engine: runs one task under one condition on one catalog size with one agent."""

from schemarouter.runtime.engine.episode import run_episode
from schemarouter.runtime.engine.resources import CatalogResources, EngineResources
from schemarouter.runtime.engine.trace import TRACE_VERSION, EpisodeTrace, read_trace

__all__ = [
    "TRACE_VERSION",
    "CatalogResources",
    "EngineResources",
    "EpisodeTrace",
    "read_trace",
    "run_episode",
]
