"""Executors by stable code: what runs a session's episodes (``sr run --executor CODE``).

An executor implements :class:`Executor` and registers itself in its own module with
``@register_executor(code)``. :func:`make_executor` imports only the module of the chosen code, so an
executor's heavy dependency (Ray) is imported only when that executor is chosen: the runtime imports
without any optional extra.

Every executor keeps the same contract: workers compute, the caller's process alone writes the store
(one transaction per episode, through ``outcomes.Sink``), failures are infrastructure events, and the
store's primary key makes a duplicate impossible, so any executor can resume any other's run.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from schemarouter.errors import SchemaRouterError
from schemarouter.runtime.run.engine_port import EngineSetup, EpisodeEngine
from schemarouter.runtime.run.outcomes import ExecutionSummary, ProgressCallback
from schemarouter.runtime.run.scope import EpisodeKey
from schemarouter.runtime.run.store import EpisodeStore

DEFAULT_EXECUTOR = "local"

# Code -> the module that registers it. Stable: codes are what users type and what manifests record.
EXECUTOR_MODULES: dict[str, str] = {
    "local": "schemarouter.runtime.run.executor",
    "ray": "schemarouter.runtime.run.ray_executor",
}


@dataclass(frozen=True)
class ExecutorOptions:
    """Options of the chosen executor (each executor reads its own)."""

    ray_address: str | None = None  # ray: a cluster's address; None starts a local Ray on this machine


class Executor(Protocol):
    """Runs ``keys`` (already minus the committed ones) and commits each finished episode via a Sink."""

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
    ) -> ExecutionSummary: ...


ExecutorFactory = Callable[[ExecutorOptions], Executor]
_REGISTRY: dict[str, ExecutorFactory] = {}


def register_executor(code: str) -> Callable[[ExecutorFactory], ExecutorFactory]:
    """Register an executor under ``code`` (which must be listed in EXECUTOR_MODULES)."""
    if code not in EXECUTOR_MODULES:
        raise ValueError(f"executor code {code!r} is not listed in EXECUTOR_MODULES")

    def wrap(factory: ExecutorFactory) -> ExecutorFactory:
        _REGISTRY[code] = factory
        return factory

    return wrap


def executor_codes() -> list[str]:
    return sorted(EXECUTOR_MODULES)


def make_executor(code: str, options: ExecutorOptions | None = None) -> Executor:
    """The executor registered under ``code``; unknown codes are one line naming the known ones."""
    module = EXECUTOR_MODULES.get(code)
    if module is None:
        known = ", ".join(executor_codes())
        raise SchemaRouterError(f"--executor {code!r}: unknown executor; known: {known}")
    importlib.import_module(module)
    return _REGISTRY[code](options or ExecutorOptions())
