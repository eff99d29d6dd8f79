"""Reading what the retrieval commands need from an experiment (application layer).

Specs come through the one strict reading: the experiment's own retriever spec and seeds from its
compiled (validated, verified) bundle; a candidate retriever spec given with ``--retriever-spec``
through the compiler's strict loader and the experiment's retriever schema, so it is held to the
same rules as the frozen one.

The surface's hidden part is read here, outside ``runtime/retrieval``, for one purpose only: the
required routes that static recall is scored against. It never reaches an index or a query, and
nothing under ``runtime/retrieval`` can open it.
"""

from __future__ import annotations

from pathlib import Path

from runtime.catalog.io import load_catalog
from runtime.catalog.model import Catalog
from runtime.core.errors import SchemaRouterError
from runtime.retrieval.bench import BenchQuery, state_after
from runtime.retrieval.recall import RecallTask
from runtime.spec_model import CompiledSpec
from runtime.spec_model.retriever import RetrieverSpec, parse_retriever_spec
from runtime.state.model import ObservableState
from schemarouter.project import ProjectPaths


def compiled_experiment(paths: ProjectPaths) -> CompiledSpec:
    """The experiment's compiled bundle (validated, and verified when it has a lock); a current build is
    reused, and nothing is written."""
    from runtime.state.guard import install_from_compiled
    from schemarouter.application.compiled import compiled_without_writing

    compiled = compiled_without_writing(paths)
    install_from_compiled(compiled)  # any state built from here on is held to this experiment's contract
    return compiled


def project_retriever_spec(paths: ProjectPaths, override: Path | None = None) -> RetrieverSpec:
    """The experiment's retriever spec, or another file to evaluate (e.g. a candidate during selection)."""
    if override is None:
        return RetrieverSpec.from_compiled(compiled_experiment(paths))
    return read_retriever_file(paths, override)


def read_retriever_file(paths: ProjectPaths, path: Path) -> RetrieverSpec:
    """A candidate retriever spec: strict YAML, the experiment's retriever schema, then the model."""
    from compiler.json_loader import load_json_text
    from compiler.schema_validation import validate_document
    from compiler.spec_files import read_text
    from compiler.yaml_loader import load_yaml_text

    shown = str(path)
    text, problem = read_text(path, shown)
    if text is None:
        raise SchemaRouterError(str(problem))
    loaded = load_yaml_text(text, file=shown)
    issues = list(loaded.issues)
    schema_path = paths.schema_dir / "retriever.schema.json"
    if not issues and schema_path.is_file():
        schema = load_json_text(schema_path.read_text(encoding="utf-8"), file=str(schema_path)).data
        issues = validate_document(loaded, schema)
    if issues:
        raise SchemaRouterError("\n".join(str(issue) for issue in issues))
    if not isinstance(loaded.data, dict):
        raise SchemaRouterError(f"{shown}: the retriever spec must be a mapping")
    return parse_retriever_spec(loaded.data, origin=shown)


def project_catalog(paths: ProjectPaths, size: int) -> Catalog:
    return load_catalog(paths.catalogs_dir, size)


def recall_tasks(paths: ProjectPaths, surface_file: Path | None = None) -> list[RecallTask]:
    """Every surface task's visible query with its required routes (``surface_file``: a pilot surface)."""
    from runtime.surface import load_surface, load_surface_file, required_routes

    out: list[RecallTask] = []
    tasks = load_surface(paths.catalogs_dir) if surface_file is None else load_surface_file(surface_file)
    for task in tasks:
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


def bench_queries(
    paths: ProjectPaths, catalog: Catalog, surface_file: Path | None = None
) -> list[BenchQuery]:
    """Each task's query with the state after its gold plan's first executed step (typed parts only)."""
    from runtime.surface import execute_gold_plan, load_surface, load_surface_file

    queries: list[BenchQuery] = []
    by_route = catalog.by_route()
    tasks = load_surface(paths.catalogs_dir) if surface_file is None else load_surface_file(surface_file)
    for task in tasks:
        calls, _world = execute_gold_plan(task, catalog)
        if calls:
            state = ObservableState.initial().after_result(calls[0].result)
        else:
            state = state_after(by_route[task.hidden.plan[0].route_id])
        queries.append(BenchQuery(query=task.visible().query, state=state))
    return queries


def catalog_seed(compiled: CompiledSpec) -> int:
    """experiment.yaml seeds.catalog (compiled): the named seed synthetic benchmark catalogs derive from."""
    return int(compiled.experiment.seeds["catalog"])
