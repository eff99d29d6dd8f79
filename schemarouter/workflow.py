"""Plain functions that join the compiler and the runtime for the CLI (the runtime never imports the
compiler; this module is where the two meet)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from schemarouter.compiler import compile_project
from schemarouter.project import ProjectPaths
from schemarouter.runtime.engine import EngineResources, EpisodeTrace, run_episode


def load_engine(
    *,
    paths: ProjectPaths,
    catalog_sizes: Iterable[int],
    agent: str = "reference",
    tokenizer_path: str | None = None,
    surface_file: Path | None = None,
    agent_options: Mapping[str, Any] | None = None,
) -> EngineResources:
    """Compile the specs (verifying the freeze when there is a lock) and build the engine's resources
    (``surface_file``: a pilot surface instead of the evaluation surface)."""
    compiled = compile_project(paths)
    return EngineResources.load(
        paths=paths,
        compiled=compiled,
        catalog_sizes=tuple(catalog_sizes),
        agent=agent,
        tokenizer_path=tokenizer_path,
        surface_file=surface_file,
        agent_options=agent_options,
    )


def run_single_episode(
    *,
    paths: ProjectPaths,
    task_id: str,
    condition_id: str | None,
    catalog_size: int,
    agent: str = "reference",
    tokenizer_path: str | None = None,
    surface_file: Path | None = None,
    agent_options: Mapping[str, Any] | None = None,
) -> EpisodeTrace:
    """One episode; ``agent_options`` are the openai agent's server, cache and model options (as for
    ``sr run``). A server that cannot be reached is a ``ModelServerError``: one line, exit 1."""
    resources = load_engine(
        paths=paths,
        catalog_sizes=(catalog_size,),
        agent=agent,
        tokenizer_path=tokenizer_path,
        surface_file=surface_file,
        agent_options=agent_options,
    )
    task = resources.task(task_id)
    # A condition code (C3) names the condition as it does for `sr run --conditions`.
    by_code = {c.code: c.id for c in resources.compiled.conditions}
    condition_id = (
        by_code.get(condition_id, condition_id) if condition_id else resources.compiled.gate.treatment
    )
    resources.condition(condition_id)
    return run_episode(resources=resources, task=task, condition_id=condition_id, catalog_size=catalog_size)
