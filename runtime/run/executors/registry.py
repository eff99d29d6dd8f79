"""Executors by stable code: what runs a session's episodes (``sr run --executor CODE``).

An executor implements :class:`Executor` and registers itself where it is defined, in a module of this
package, with ``@register_executor(code)``; every module here is imported on first lookup (``local``
first). No module here imports an executor's heavy dependency at import time: Ray is imported when
the ``ray`` executor is constructed, so the runtime imports without any optional extra.

Every executor keeps the same contract: workers compute, the caller's process alone writes the store
(one transaction per episode, through ``outcomes.Sink``), failures are infrastructure events, and the
store's primary key makes a duplicate impossible, so any executor can resume any other's run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from runtime.core.errors import SchemaRouterError
from runtime.core.registry import Registry, decorator
from runtime.run.outcomes import ExecutionRequest, ExecutionSummary

# Codes are stable: they are what users type and what run manifests record.
DEFAULT_EXECUTOR = "local"


@dataclass(frozen=True)
class ExecutorOptions:
    """Options of the chosen executor (each executor reads its own)."""

    ray_address: str | None = None  # ray: a cluster's address; None starts a local Ray on this machine


class Executor(Protocol):
    """Runs a request's keys and commits each finished episode via the request's Sink."""

    def execute(self, request: ExecutionRequest) -> ExecutionSummary: ...


ExecutorFactory = Callable[[ExecutorOptions], Executor]
# ``local`` first, then the package's other modules; installed packages add theirs through the
# ``schemarouter.executors`` entry points.
EXECUTORS: Registry[ExecutorFactory] = Registry(
    "executor",
    group="executors",
    package=__name__.rsplit(".", 1)[0],
    first=("local",),
    skip=("registry",),
)


def register_executor(code: str) -> Callable[[ExecutorFactory], ExecutorFactory]:
    """Register an executor under ``code``; a code is taken once."""
    return decorator(EXECUTORS, code)


def executor_codes() -> list[str]:
    return EXECUTORS.names()


def make_executor(code: str, options: ExecutorOptions | None = None) -> Executor:
    """The executor registered under ``code``; unknown codes are one line naming the known ones."""
    if code not in EXECUTORS:
        known = ", ".join(executor_codes())
        raise SchemaRouterError(f"--executor {code!r}: unknown executor; known: {known}")
    return EXECUTORS.get(code)(options or ExecutorOptions())
