"""The episode engine: runs one task under one condition on one catalog size with one agent."""

from runtime.engine.episode import run_episode
from runtime.engine.resources import CatalogResources, EngineResources
from runtime.engine.trace import TRACE_VERSION, EpisodeTrace, read_trace

__all__ = [
    "TRACE_VERSION",
    "CatalogResources",
    "EngineResources",
    "EpisodeTrace",
    "read_trace",
    "run_episode",
]
