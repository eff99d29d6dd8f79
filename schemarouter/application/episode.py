"""`sr episode` and the engine-level commands: one engine loaded from the compiled experiment, and one
episode run on it (the runtime never imports the compiler; this module is where the two meet)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from runtime.core.json_value import JSONValue
from runtime.engine import EngineResources, EpisodeTrace, run_episode
from schemarouter.application.compiled import compiled_for_run
from schemarouter.project import ProjectPaths


@dataclass(frozen=True)
class EpisodeRequest:
    """One episode: a task, a condition (ID or code; default the gate's treatment) and a catalog size."""

    task_id: str
    condition_id: str | None
    catalog_size: int
    agent: str = "reference"
    tokenizer_path: str | None = None
    surface_file: Path | None = None
    # The openai agent's server, cache and model options, as `sr run` takes them.
    agent_options: Mapping[str, JSONValue] = field(default_factory=dict)


def load_engine(
    *,
    paths: ProjectPaths,
    catalog_sizes: Iterable[int],
    agent: str = "reference",
    tokenizer_path: str | None = None,
    surface_file: Path | None = None,
    agent_options: Mapping[str, JSONValue] | None = None,
) -> EngineResources:
    """Compile the specs (verifying the freeze when there is a lock; a current build is reused, as
    `sr run` does) and build the engine's resources (``surface_file``: a pilot surface instead of the
    evaluation surface)."""
    compiled = compiled_for_run(paths).spec
    return EngineResources.load(
        catalogs_dir=paths.catalogs_dir,
        compiled=compiled,
        catalog_sizes=tuple(catalog_sizes),
        agent=agent,
        tokenizer_path=tokenizer_path,
        surface_file=surface_file,
        agent_options=agent_options,
        cache_dir=paths.build_dir / "retrieval",
    )


def run_single_episode(paths: ProjectPaths, request: EpisodeRequest) -> EpisodeTrace:
    """One episode. A model server that cannot be reached is a ``ModelServerError`` (a
    SchemaRouterError): one line and exit 1, never a traceback."""
    resources = load_engine(
        paths=paths,
        catalog_sizes=(request.catalog_size,),
        agent=request.agent,
        tokenizer_path=request.tokenizer_path,
        surface_file=request.surface_file,
        agent_options=request.agent_options,
    )
    task = resources.task(request.task_id)
    # A condition code (C3) names the condition as it does for `sr run --conditions`.
    by_code = {c.code: c.id for c in resources.compiled.conditions}
    condition_id = request.condition_id
    condition_id = (
        by_code.get(condition_id, condition_id) if condition_id else resources.compiled.gate.treatment
    )
    resources.condition(condition_id)
    return run_episode(
        resources=resources, task=task, condition_id=condition_id, catalog_size=request.catalog_size
    )


def show_episode(paths: ProjectPaths, request: EpisodeRequest, pilot: str | None) -> str:
    """Run the episode, print its readable trace (after the PILOT line of a pilot surface), and return
    the trace as indented JSON (for ``--json``)."""
    import json

    from runtime.engine.show import render_trace
    from runtime.report.console import pilot_line

    if pilot is not None:
        print(pilot_line(pilot))
    trace = run_single_episode(paths, request)
    render_trace(trace)
    return json.dumps(trace.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"
