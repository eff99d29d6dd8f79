"""Reading what the retrieval commands need from a project directory.

The surface's hidden part is read here for one purpose only: the required routes that static recall
is scored against. It never reaches an index or a query.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from schemarouter.errors import SchemaRouterError
from schemarouter.project import ProjectPaths
from schemarouter.runtime.catalog.io import load_catalog
from schemarouter.runtime.catalog.model import Catalog
from schemarouter.runtime.retrieval.bench import BenchQuery, state_after
from schemarouter.runtime.retrieval.recall import RecallTask
from schemarouter.runtime.retrieval.spec import RetrieverSpec, load_retriever_spec
from schemarouter.runtime.state.model import ObservableState


def project_retriever_spec(paths: ProjectPaths, override: Path | None = None) -> RetrieverSpec:
    """spec/retriever.yaml of the project, or another file to evaluate (e.g. a candidate during selection)."""
    return load_retriever_spec(override if override is not None else paths.spec_dir / "retriever.yaml")


def project_catalog(paths: ProjectPaths, size: int) -> Catalog:
    return load_catalog(paths.catalogs_dir, size)


def recall_tasks(paths: ProjectPaths) -> list[RecallTask]:
    """Every surface task's visible query with its required routes."""
    from schemarouter.runtime.surface import load_surface, required_routes

    out: list[RecallTask] = []
    for task in load_surface(paths.catalogs_dir):
        visible = task.visible()
        out.append(
            RecallTask(
                task_id=visible.task_id,
                stratum=visible.stratum,
                language=visible.language,
                query=visible.query,
                required_route_ids=tuple(sorted(required_routes(task))),
            )
        )
    return out


def bench_queries(paths: ProjectPaths, catalog: Catalog) -> list[BenchQuery]:
    """Each task's query with the state after its gold plan's first executed step (typed parts only)."""
    from schemarouter.runtime.surface import execute_gold_plan, load_surface

    queries: list[BenchQuery] = []
    by_route = catalog.by_route()
    for task in load_surface(paths.catalogs_dir):
        calls, _world = execute_gold_plan(task, catalog)
        if calls:
            state = ObservableState.initial().after_result(calls[0].result)
        else:
            state = state_after(by_route[task.hidden.plan[0].route_id])
        queries.append(BenchQuery(query=task.visible().query, state=state))
    return queries


def catalog_seed(paths: ProjectPaths) -> int:
    """spec/experiment.yaml seeds.catalog: the named seed synthetic benchmark catalogs derive from."""
    path = paths.spec_dir / "experiment.yaml"
    try:
        return int(yaml.safe_load(path.read_text(encoding="utf-8"))["seeds"]["catalog"])
    except (OSError, KeyError, TypeError, ValueError) as err:
        raise SchemaRouterError(f"{path}: cannot read seeds.catalog ({err})") from None
