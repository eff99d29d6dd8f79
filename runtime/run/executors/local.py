"""Executor ``local``: this machine, inline (``--workers 1``) or a process pool (``runtime/run/executor.py``,
unchanged by the registry)."""

from __future__ import annotations

from collections.abc import Sequence

from schemarouter.runtime.run.engine_port import EngineSetup, EpisodeEngine
from schemarouter.runtime.run.executor import execute
from schemarouter.runtime.run.executors.registry import ExecutorOptions, register_executor
from schemarouter.runtime.run.outcomes import ExecutionSummary, ProgressCallback
from schemarouter.runtime.run.scope import EpisodeKey
from schemarouter.runtime.run.store import EpisodeStore


@register_executor("local")
class LocalExecutor:
    """Code ``local``: this machine, inline (``workers == 1``) or a process pool."""

    def __init__(self, options: ExecutorOptions) -> None:
        del options  # nothing to choose

    def execute(
        self,
        keys: Sequence[EpisodeKey],
        *,
        store: EpisodeStore,
        engine: EpisodeEngine,
        setup: EngineSetup,
        session: int,
        workers: int,
        max_events: int = 20,
        on_progress: ProgressCallback | None = None,
    ) -> ExecutionSummary:
        return execute(
            keys,
            store=store,
            engine=engine,
            setup=setup,
            session=session,
            workers=workers,
            max_events=max_events,
            on_progress=on_progress,
        )
