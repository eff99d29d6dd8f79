"""Run directories: manifest, crash-safe episode store, shards, resume, infrastructure events, progress.

See README.md. Outcomes are read only by the scoring package, and only from a terminal result set.
"""

from runtime.run.engine_port import EngineAdapter, EngineSetup, EpisodeEngine, LoadedEngine
from runtime.run.manifest import (
    AgentConfig,
    FreezeState,
    PilotSurface,
    RunManifest,
    read_manifest,
)
from runtime.run.resultset import ResultSet, SealedResultSet, load_result_set
from runtime.run.rundir import RunRequest, open_run_dir
from runtime.run.scope import EpisodeKey, RunScope, Shard, TaskRef
from runtime.run.session import SessionResult, run_session

__all__ = [
    "AgentConfig",
    "EngineAdapter",
    "EngineSetup",
    "EpisodeEngine",
    "EpisodeKey",
    "FreezeState",
    "LoadedEngine",
    "PilotSurface",
    "ResultSet",
    "RunManifest",
    "RunRequest",
    "RunScope",
    "SealedResultSet",
    "SessionResult",
    "Shard",
    "TaskRef",
    "load_result_set",
    "open_run_dir",
    "read_manifest",
    "run_session",
]
