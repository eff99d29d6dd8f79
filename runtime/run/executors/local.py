"""Executor ``local``: this machine, inline (``--workers 1``) or a process pool
(``runtime/run/executor.py``, unchanged by the registry)."""

from __future__ import annotations

from schemarouter.runtime.run.executor import execute
from schemarouter.runtime.run.executors.registry import ExecutorOptions, register_executor


@register_executor("local")
class LocalExecutor:
    """Code ``local``: this machine, inline (``workers == 1``) or a process pool."""

    def __init__(self, options: ExecutorOptions) -> None:
        del options  # nothing to choose

    # The process-pool function has the Executor signature; it runs as this executor's method unchanged.
    execute = staticmethod(execute)
