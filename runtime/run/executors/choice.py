"""``sr run --executor CODE [--ray-address ADDR]`` as executor options, checked before anything runs."""

from __future__ import annotations

import importlib.util

from runtime.core.errors import SchemaRouterError
from runtime.run.executors.ray_cluster import RAY_MISSING
from runtime.run.executors.registry import ExecutorOptions, executor_codes


def executor_choice(executor: str, ray_address: str | None) -> ExecutorOptions:
    """The options of ``executor``; an unknown code or an option of another executor is one line."""
    if executor not in executor_codes():
        known = ", ".join(executor_codes())
        raise SchemaRouterError(f"--executor {executor!r}: unknown executor; known: {known}")
    if ray_address is not None and executor != "ray":
        raise SchemaRouterError("--ray-address is an option of --executor ray")
    if ray_address is not None and not ray_address.strip():
        raise SchemaRouterError("--ray-address '': names no cluster; leave it out to start a local Ray")
    if executor == "ray" and importlib.util.find_spec("ray") is None:  # before a run directory is made
        raise SchemaRouterError(RAY_MISSING)
    return ExecutorOptions(ray_address=ray_address)
