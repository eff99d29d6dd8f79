"""`sr retrieve`, `sr surface recall` and `sr bench retrieval`: retrieval over the experiment's catalogs,
wired to the project's files, and what each command prints (to the console it is given).

Nothing here opens a task's hidden part except through ``retrieval_io.recall_tasks`` (required routes for
recall), which lives outside the retrieval package so that retrieval itself never can.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.core import limits
from runtime.core.errors import SchemaRouterError
from runtime.core.progress import Progress, announce
from schemarouter.project import ProjectPaths

if TYPE_CHECKING:
    from rich.console import Console

    from runtime.retrieval.bench import CorpusBench
    from runtime.retrieval.call import RetrievalCall
    from runtime.retrieval.recall import TaskRecall
    from schemarouter.application.surfaces import ChosenSurface


def parse_sizes(text: str, option: str) -> list[int]:
    try:
        sizes = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        sizes = []
    if not sizes or any(n <= 0 for n in sizes):
        raise SchemaRouterError(f"{option}: expected comma-separated positive sizes, got {text!r}")
    return sizes


def retrieve(
    *,
    project: ProjectPaths,
    catalog_size: int,
    query: str,
    state_file: Path | None,
    k: int,
    spec: Path | None,
) -> RetrievalCall:
    """Rank one query (with a state file: the state-aware composition) over one catalog."""
    from runtime.retrieval.index import RetrievalIndex
    from runtime.retrieval.retrievers import StateAwareRetriever, StaticRetriever
    from runtime.state.state_file import Vocabulary, read_state_file
    from schemarouter.application.retrieval_io import (
        compiled_experiment,
        project_catalog,
        project_retriever_spec,
    )

    catalog = project_catalog(project, catalog_size)
    if state_file is not None:
        compiled_experiment(project)  # installs the experiment's state contract for the guard
    # A state file is input: its names must be the catalog's registered ones (runtime/state/state_file.py).
    state = None if state_file is None else read_state_file(state_file, vocabulary=Vocabulary.of(catalog))
    index = RetrievalIndex.build(catalog, project_retriever_spec(project, spec))
    if state is None:
        return StaticRetriever(index).rank(query, k)
    return StateAwareRetriever(index).rank(query, state, k)


def surface_recall(
    *,
    project: ProjectPaths,
    catalog_sizes: Sequence[int],
    k: int,
    spec: Path | None,
    surface_file: Path | None = None,
) -> list[TaskRecall]:
    """Static top-k recall of every task's required routes, at each catalog size, ranked by the strategy
    the retriever spec names (retriever.yaml ``strategy``, with its params; absent: text_concat)."""
    from runtime.retrieval.recall import task_recalls
    from runtime.retrieval.strategy import build_from_spec
    from schemarouter.application.retrieval_io import project_catalog, project_retriever_spec, recall_tasks

    retriever_spec = project_retriever_spec(project, spec)
    tasks = recall_tasks(project, surface_file)
    results: list[TaskRecall] = []
    for size in catalog_sizes:
        strategy = build_from_spec(
            retriever_spec, project_catalog(project, size), cache_dir=project.build_dir / "retrieval"
        )
        results.extend(task_recalls(strategy, tasks, k))
    return results


def bench_retrieval(
    *,
    project: ProjectPaths,
    synthetic_sizes: Sequence[int],
    repeats: int,
    with_bm25s: bool,
    surface_file: Path | None = None,
) -> list[CorpusBench]:
    """Speed of ours vs raw Tantivy vs bm25s on the real catalogs and scaled synthetic ones
    (``surface_file``: the queries of a pilot surface)."""
    from runtime.retrieval.bench import bench_corpus
    from runtime.retrieval.synthetic import scaled_endpoints
    from runtime.spec_model.retriever import RetrieverSpec
    from schemarouter.application.retrieval_io import (
        bench_queries,
        catalog_seed,
        compiled_experiment,
        project_catalog,
    )

    compiled = compiled_experiment(project)  # compiled once: the retriever spec and the seed
    retriever_spec = RetrieverSpec.from_compiled(compiled)
    largest = project_catalog(project, 500)
    queries = bench_queries(project, largest, surface_file)
    rows = []
    for size in (100, 250, 500):
        endpoints = project_catalog(project, size).endpoints
        rows.append(
            bench_corpus(
                str(size), endpoints, retriever_spec, queries, repeats=repeats, with_bm25s=with_bm25s
            )
        )
    seed = catalog_seed(compiled)
    for n in synthetic_sizes:
        synthetic = scaled_endpoints(largest.endpoints, n, seed=seed)
        label = f"{n // 1000}k synthetic" if n % 1000 == 0 else f"{n} synthetic"
        rows.append(
            bench_corpus(label, synthetic, retriever_spec, queries, repeats=repeats, with_bm25s=with_bm25s)
        )
    return rows


def print_call(call: RetrievalCall) -> None:
    from rich.table import Table

    from runtime.report.console import make_console

    console = make_console()
    table = Table(title=f"catalog {call.catalog_size} · {call.query_kind} · {call.latency_us} µs")
    for column, justify in (("rank", "right"), ("route_id", "left"), ("score", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for rank, (route_id, score) in enumerate(zip(call.route_ids, call.scores, strict=True), start=1):
        table.add_row(str(rank), route_id, f"{score:.4f}")
    console.print(table)
    if not call.route_ids:
        console.print("no route matches any term of the text")
    if call.query_kind == "original_plus_state":
        console.print(f"retrieved with: {call.text!r}", soft_wrap=True, highlight=False, markup=False)


@dataclass(frozen=True)
class RetrieveRequest:
    """`sr retrieve`: a query over a catalog of the experiment (``catalog``) or any ``catalog_file``."""

    query: str
    catalog: int = 500
    state: Path | None = None
    k: int = 5
    spec: Path | None = None
    catalog_file: Path | None = None
    strategy: str | None = None


def show_retrieve(project: ProjectPaths, r: RetrieveRequest) -> None:
    """Rank the query and print the ranking."""
    problem = limits.query_problem(r.query)
    if problem is not None:
        raise SchemaRouterError(f"sr retrieve: {problem}")
    if r.catalog_file is None:
        call = retrieve(
            project=project, catalog_size=r.catalog, query=r.query, state_file=r.state, k=r.k, spec=r.spec
        )
    else:
        from schemarouter.application.retrieval_eval import retrieve_in_file

        call = retrieve_in_file(
            project=project,
            catalog_file=r.catalog_file,
            query=r.query,
            state_file=r.state,
            k=r.k,
            spec=r.spec,
            strategy=r.strategy,
        )
    print_call(call)


@dataclass(frozen=True)
class RecallRequest:
    """`sr surface recall`: static top-``k`` recall at ``catalogs``; ``cells``/``misses``: what to print."""

    catalogs: str = "100,250,500"
    k: int = 5
    cells: bool = True
    misses: bool = False
    spec: Path | None = None


def show_surface_recall(
    project: ProjectPaths, chosen: ChosenSurface, r: RecallRequest, console: Console
) -> None:
    from runtime.report.console import pilot_line
    from runtime.report.retrieval_tables import recall_table
    from runtime.retrieval.recall import aggregate

    sizes = parse_sizes(r.catalogs, "--catalogs")
    results = surface_recall(
        project=project, catalog_sizes=sizes, k=r.k, spec=r.spec, surface_file=chosen.file
    )
    if chosen.pilot is not None:
        console.print(pilot_line(chosen.pilot.name), markup=False, highlight=False)
    from runtime.retrieval.strategy import strategy_of
    from schemarouter.application.retrieval_io import project_retriever_spec

    code, _ = strategy_of(project_retriever_spec(project, r.spec))
    whole = aggregate(results, by_stratum=False, by_language=False)
    console.print(recall_table(f"static top-{r.k} recall per catalog (strategy {code})", whole))
    console.print(recall_table("per stratum", aggregate(results, by_language=False)))
    console.print(recall_table("per language", aggregate(results, by_stratum=False)))
    if r.cells:
        console.print(recall_table("per stratum x language", aggregate(results)))
    if r.misses:
        for t in results:
            if not t.covered:
                missing = sorted(set(t.task.required_route_ids) - set(t.found))
                line = f"{t.catalog_size} {t.task.task_id} missing {', '.join(missing)}: {t.task.query}"
                console.print(line, markup=False)


@dataclass(frozen=True)
class BenchRetrievalRequest:
    """`sr bench retrieval`: synthetic sizes, timed passes, bm25s beside; on a pilot, the strategy study."""

    synthetic: str = "5000,50000"
    repeats: int = 5
    bm25s: bool = True
    strategies: bool = True
    study_out: Path | None = None


def show_bench_retrieval(
    project: ProjectPaths,
    chosen: ChosenSurface,
    r: BenchRetrievalRequest,
    console: Console,
    progress: Progress | None = None,
) -> None:
    from runtime.report.console import pilot_line
    from runtime.report.retrieval_tables import bench_table
    from schemarouter.output_guard import output_guard

    sizes = parse_sizes(r.synthetic, "--synthetic")
    if r.study_out is not None:
        if chosen.pilot is None or not r.strategies:
            raise SchemaRouterError("--study-out needs a pilot surface (--surface dev) and --strategies")
        output_guard(project.root, sources=[chosen.file] if chosen.file else []).file(
            r.study_out, option="--study-out"
        )
    announce(progress, "timing the retrievers", 0)
    rows = bench_retrieval(
        project=project,
        synthetic_sizes=sizes,
        repeats=r.repeats,
        with_bm25s=r.bm25s,
        surface_file=chosen.file,
    )
    if chosen.pilot is not None:
        console.print(pilot_line(chosen.pilot.name), markup=False, highlight=False)
    console.print(bench_table(rows))
    if chosen.pilot is not None and r.strategies:
        _strategy_study(console, project, chosen, r.study_out, r.repeats, progress)


def _strategy_study(
    console: Console,
    project: ProjectPaths,
    chosen: ChosenSurface,
    out: Path | None,
    repeats: int,
    progress: Progress | None,
) -> None:
    from rich.table import Table

    from runtime.analysis.study_markdown import TABLE_HEADER, table_rows
    from schemarouter.application.strategy_study import run_study, write_study

    command = "sr bench retrieval --surface dev" + (f" --study-out {out}" if out is not None else "")
    study = run_study(project, chosen, repeats=repeats, command=command, progress=progress)
    if out is not None:
        write_study(study, out, project_root=project.root)
    table = Table(
        title=f"Retrieval strategies on {study.surface}: pooled over catalogs 100/250/500, p50 at 500"
    )
    for name in TABLE_HEADER:
        table.add_column(name, justify="left" if name == "strategy" else "right")
    for row in table_rows(study):
        table.add_row(*row)
    console.print(table)
    console.print(f"chosen by the study's rule: {study.chosen}", markup=False, highlight=False)
    if out is not None:
        console.print(f"wrote {out}", markup=False, highlight=False)
