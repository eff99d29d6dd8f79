"""Executor ``local``: this machine, inline (``--workers 1``) or a process pool
(``runtime/run/episode_pool.py``, unchanged by the registry)."""

from __future__ import annotations

from runtime.run.episode_pool import execute
from runtime.run.executors.registry import ExecutorOptions, register_executor


@register_executor("local")
class LocalExecutor:
    """Code ``local``: this machine, inline (``workers == 1``) or a process pool."""

    def __init__(self, options: ExecutorOptions) -> None:
        del options  # nothing to choose

    # The process-pool function has the Executor signature; it runs as this executor's method unchanged.
    execute = staticmethod(execute)
