"""`sr retrieve`, `sr surface recall`, `sr bench retrieval`: thin typer commands over plain functions.

Registered on import by schemarouter.cli.app; `surface` and `bench` are groups shared with other areas.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from schemarouter.cli.app import ExperimentOpt, SurfaceFileOpt, SurfaceOpt, app, fail, paths
from schemarouter.cli.bench_group import bench_app
from schemarouter.cli.surface_group import surface_app
from schemarouter.project import ProjectPaths

# The runtime and rich are imported where they are used, so `sr --help` does not load them.
if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from schemarouter.runtime.retrieval.bench import CorpusBench, Timing
    from schemarouter.runtime.retrieval.call import RetrievalCall
    from schemarouter.runtime.retrieval.recall import RecallCell, TaskRecall

SpecOption = Annotated[
    Path | None,
    typer.Option("--retriever-spec", help="Retriever spec to use instead of spec/retriever.yaml."),
]


# ---- plain functions -----------------------------------------------------------------------------


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
    from schemarouter.application.retrieval_io import (
        compiled_experiment,
        project_catalog,
        project_retriever_spec,
    )
    from schemarouter.runtime.retrieval.index import RetrievalIndex
    from schemarouter.runtime.retrieval.retrievers import StateAwareRetriever, StaticRetriever
    from schemarouter.runtime.state.state_file import Vocabulary, read_state_file

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
    """Static top-k recall of every task's required routes, at each catalog size."""
    from schemarouter.application.retrieval_io import project_catalog, project_retriever_spec, recall_tasks
    from schemarouter.runtime.retrieval.index import RetrievalIndex
    from schemarouter.runtime.retrieval.recall import task_recalls

    retriever_spec = project_retriever_spec(project, spec)
    tasks = recall_tasks(project, surface_file)
    results: list[TaskRecall] = []
    for size in catalog_sizes:
        index = RetrievalIndex.build(project_catalog(project, size), retriever_spec)
        results.extend(task_recalls(index, tasks, k))
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
    from schemarouter.application.retrieval_io import (
        bench_queries,
        catalog_seed,
        compiled_experiment,
        project_catalog,
    )
    from schemarouter.runtime.retrieval.bench import bench_corpus
    from schemarouter.runtime.retrieval.spec import RetrieverSpec
    from schemarouter.runtime.retrieval.synthetic import scaled_endpoints

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


# ---- commands ------------------------------------------------------------------------------------


@app.command("retrieve")
def retrieve_command(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="The query text (taken literally; never parsed as syntax).")],
    catalog: Annotated[int, typer.Option("--catalog", help="Catalog size: 100, 250 or 500.")] = 500,
    state: Annotated[
        Path | None,
        typer.Option(
            "--state", help="ObservableState JSON file: retrieve with query + newline + its canonical JSON."
        ),
    ] = None,
    k: Annotated[int, typer.Option("-k", "--k", min=0, help="How many routes to return.")] = 5,
    retriever_spec: SpecOption = None,
    catalog_file: Annotated[
        Path | None,
        typer.Option(
            "--catalog-file", help="Any catalog file (e.g. from `sr catalog import`) instead of --catalog."
        ),
    ] = None,
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy", help="With --catalog-file: a registered retrieval strategy (default: the spec's)."
        ),
    ] = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Show the ranking of a query (or of a query plus observable state), with scores."""
    if catalog_file is not None:
        from schemarouter.application.retrieval_eval import retrieve_in_file

        _print_call(
            retrieve_in_file(
                project=paths(ctx, experiment),
                catalog_file=catalog_file,
                query=query,
                state_file=state,
                k=k,
                spec=retriever_spec,
                strategy=strategy,
            )
        )
        return
    call = retrieve(
        project=paths(ctx, experiment),
        catalog_size=catalog,
        query=query,
        state_file=state,
        k=k,
        spec=retriever_spec,
    )
    _print_call(call)


def _print_call(call: RetrievalCall) -> None:
    from rich.table import Table

    from schemarouter.runtime.report.console import make_console

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


@surface_app.command("recall")
def surface_recall_command(
    ctx: typer.Context,
    catalogs: Annotated[str, typer.Option(help="Comma-separated catalog sizes.")] = "100,250,500",
    k: Annotated[int, typer.Option("-k", "--k", min=1, help="Top-k to look in.")] = 5,
    cells: Annotated[bool, typer.Option(help="Also print every catalog x stratum x language cell.")] = True,
    misses: Annotated[bool, typer.Option(help="List the tasks whose top k misses a required route.")] = False,
    retriever_spec: SpecOption = None,
    surface: SurfaceOpt = None,
    surface_file: SurfaceFileOpt = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Static top-k recall of the required routes for the original queries (a fact about the surface)."""
    from schemarouter.application.surfaces import choose_surface
    from schemarouter.runtime.report.console import make_console, pilot_line
    from schemarouter.runtime.retrieval.recall import aggregate

    sizes = _sizes(catalogs, "--catalogs")
    project = paths(ctx, experiment)
    chosen = choose_surface(project, surface=surface, surface_file=surface_file)
    results = surface_recall(
        project=project, catalog_sizes=sizes, k=k, spec=retriever_spec, surface_file=chosen.file
    )
    console = make_console()
    if chosen.pilot is not None:
        console.print(pilot_line(chosen.pilot.name), markup=False, highlight=False)
    console.print(
        _recall_table(
            f"static top-{k} recall per catalog", aggregate(results, by_stratum=False, by_language=False)
        )
    )
    console.print(_recall_table("per stratum", aggregate(results, by_language=False)))
    console.print(_recall_table("per language", aggregate(results, by_stratum=False)))
    if cells:
        console.print(_recall_table("per stratum x language", aggregate(results)))
    if misses:
        for r in results:
            if not r.covered:
                missing = sorted(set(r.task.required_route_ids) - set(r.found))
                console.print(
                    f"{r.catalog_size} {r.task.task_id} missing {', '.join(missing)}: {r.task.query}",
                    markup=False,
                )


@bench_app.command("retrieval")
def bench_retrieval_command(
    ctx: typer.Context,
    synthetic: Annotated[
        str, typer.Option(help="Comma-separated sizes of scaled synthetic catalogs.")
    ] = "5000,50000",
    repeats: Annotated[
        int, typer.Option(min=1, help="Timed passes over all queries (after one warm-up).")
    ] = 5,
    bm25s: Annotated[bool, typer.Option(help="Also measure bm25s on the same corpus and queries.")] = True,
    strategies: Annotated[
        bool,
        typer.Option(
            help="On a pilot surface: also compare every registered retrieval strategy in full pilot "
            "episodes (Recall@5 by transition kind, p50 beside raw Tantivy)."
        ),
    ] = True,
    study_out: Annotated[
        Path | None,
        typer.Option(help="Write the strategy study (markdown, every figure generated) to this file."),
    ] = None,
    surface: SurfaceOpt = None,
    surface_file: SurfaceFileOpt = None,
    experiment: ExperimentOpt = None,
) -> None:
    """p50/p95 µs per query (original, state-aware), build time, ratios to raw Tantivy and bm25s; on a
    pilot surface, the retrieval-strategy study too."""
    from schemarouter.application.surfaces import choose_surface
    from schemarouter.atomic_write import check_output_file
    from schemarouter.runtime.report.console import make_console, pilot_line

    sizes = _sizes(synthetic, "--synthetic")
    project = paths(ctx, experiment)
    chosen = choose_surface(project, surface=surface, surface_file=surface_file)
    if study_out is not None:
        if chosen.pilot is None or not strategies:
            raise fail("--study-out needs a pilot surface (--surface dev) and --strategies")
        check_output_file(study_out, option="--study-out")
    rows = bench_retrieval(
        project=project,
        synthetic_sizes=sizes,
        repeats=repeats,
        with_bm25s=bm25s,
        surface_file=chosen.file,
    )
    console = make_console(log_width=220)
    if chosen.pilot is not None:
        console.print(pilot_line(chosen.pilot.name), markup=False, highlight=False)
    console.print(_bench_table(rows))
    if chosen.pilot is None or not strategies:
        return
    _strategy_study(console, project, chosen, study_out, repeats)


def _strategy_study(
    console: Console, project: ProjectPaths, chosen: Any, out: Path | None, repeats: int
) -> None:
    from rich.table import Table

    from schemarouter.application.strategy_study import run_study
    from schemarouter.application.strategy_study_md import TABLE_HEADER, table_rows, write_study

    command = "sr bench retrieval --surface dev" + (f" --study-out {out}" if out is not None else "")
    study = run_study(project, chosen, repeats=repeats, command=command)
    if out is not None:
        write_study(study, out)
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


def _sizes(text: str, option: str) -> list[int]:
    try:
        sizes = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        sizes = []
    if not sizes or any(n <= 0 for n in sizes):
        raise fail(f"{option}: expected comma-separated positive sizes, got {text!r}")
    return sizes


# ---- rendering -----------------------------------------------------------------------------------


def _recall_table(title: str, cells: Sequence[RecallCell]) -> Table:
    from rich.table import Table

    table = Table(title=title)
    for column in (
        "catalog",
        "stratum",
        "language",
        "tasks",
        "routes found / required",
        "route recall",
        "tasks covered",
    ):
        table.add_column(column, justify="left" if column in ("stratum", "language") else "right")
    for c in cells:
        table.add_row(
            str(c.catalog_size),
            c.stratum,
            c.language,
            str(c.tasks),
            f"{c.found}/{c.required}",
            f"{c.route_recall:.3f}",
            f"{c.covered_tasks}/{c.tasks} ({c.task_coverage:.3f})",
        )
    return table


def _t(t: Timing | None) -> str:
    return "—" if t is None else f"{t.p50_us:,.0f} / {t.p95_us:,.0f}"


def _ratio(a: Timing | None, b: Timing | None) -> str:
    return "—" if a is None or b is None or b.p50_us == 0 else f"{a.p50_us / b.p50_us:.2f}×"


def _bench_table(rows: Sequence[CorpusBench]) -> Table:
    from rich.table import Table

    table = Table(title="retrieval speed: p50 / p95 µs per query; ratios of p50")
    columns = (
        "corpus",
        "endpoints",
        "build s",
        "ours original",
        "ours state",
        "raw original",
        "raw state",
        "ours/raw orig",
        "ours/raw state",
        "bm25s original",
        "bm25s state",
        "bm25s/ours orig",
        "bm25s/ours state",
        "bm25s build s",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "corpus" else "right")
    for r in rows:
        table.add_row(
            r.label,
            f"{r.endpoints:,}",
            f"{r.build_s:.2f}",
            _t(r.ours_original),
            _t(r.ours_state),
            _t(r.raw_original),
            _t(r.raw_state),
            _ratio(r.ours_original, r.raw_original),
            _ratio(r.ours_state, r.raw_state),
            _t(r.bm25s_original),
            _t(r.bm25s_state),
            _ratio(r.bm25s_original, r.ours_original),
            _ratio(r.bm25s_state, r.ours_state),
            "—" if r.bm25s_build_s is None else f"{r.bm25s_build_s:.2f}",
        )
    return table
