"""`sr retrieve`, `sr surface recall`, `sr bench retrieval`: option parsing over
:mod:`schemarouter.application.retrieval` (and, for a catalog file, ``application.retrieval_eval``).

Registered on import by schemarouter.cli.app; `surface` and `bench` are groups shared with other areas.
The application layer and rich are imported inside the commands, so `sr --help` does not load them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, SurfaceFileOpt, SurfaceOpt, app, paths
from schemarouter.cli.bench_group import bench_app
from schemarouter.cli.surface_group import surface_app

SpecOption = Annotated[
    Path | None,
    typer.Option("--retriever-spec", help="Retriever spec to use instead of spec/retriever.yaml."),
]
QueryArg = Annotated[str, typer.Argument(help="The query text (taken literally; never parsed as syntax).")]
CatalogOpt = Annotated[int, typer.Option("--catalog", help="Catalog size: 100, 250 or 500.")]
StateOpt = Annotated[
    Path | None,
    typer.Option(
        "--state", help="ObservableState JSON file: retrieve with query + newline + its canonical JSON."
    ),
]
KOpt = Annotated[int, typer.Option("-k", "--k", min=0, help="How many routes to return.")]
CatalogFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--catalog-file", help="Any catalog file (e.g. from `sr catalog import`) instead of --catalog."
    ),
]
StrategyOpt = Annotated[
    str | None,
    typer.Option(
        "--strategy", help="With --catalog-file: a registered retrieval strategy (default: the spec's)."
    ),
]
CatalogsOpt = Annotated[str, typer.Option(help="Comma-separated catalog sizes.")]
TopKOpt = Annotated[int, typer.Option("-k", "--k", min=1, help="Top-k to look in.")]
CellsOpt = Annotated[bool, typer.Option(help="Also print every catalog x stratum x language cell.")]
MissesOpt = Annotated[bool, typer.Option(help="List the tasks whose top k misses a required route.")]
SyntheticOpt = Annotated[str, typer.Option(help="Comma-separated sizes of scaled synthetic catalogs.")]
RepeatsOpt = Annotated[int, typer.Option(min=1, help="Timed passes over all queries (after one warm-up).")]
Bm25sOpt = Annotated[bool, typer.Option(help="Also measure bm25s on the same corpus and queries.")]
StrategiesOpt = Annotated[
    bool,
    typer.Option(
        help="On a pilot surface: also compare every registered retrieval strategy in full pilot "
        "episodes (Recall@5 by transition kind, p50 beside raw Tantivy)."
    ),
]
StudyOutOpt = Annotated[
    Path | None,
    typer.Option(help="Write the strategy study (markdown, every figure generated) to this file."),
]


@app.command("retrieve")
def retrieve_command(
    ctx: typer.Context,
    query: QueryArg,
    catalog: CatalogOpt = 500,
    state: StateOpt = None,
    k: KOpt = 5,
    retriever_spec: SpecOption = None,
    catalog_file: CatalogFileOpt = None,
    strategy: StrategyOpt = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Show the ranking of a query (or of a query plus observable state), with scores."""
    from schemarouter.application.retrieval import RetrieveRequest, show_retrieve

    request = RetrieveRequest(query, catalog, state, k, retriever_spec, catalog_file, strategy)
    show_retrieve(paths(ctx, experiment), request)


@surface_app.command("recall")
def surface_recall_command(
    ctx: typer.Context,
    catalogs: CatalogsOpt = "100,250,500",
    k: TopKOpt = 5,
    cells: CellsOpt = True,
    misses: MissesOpt = False,
    retriever_spec: SpecOption = None,
    surface: SurfaceOpt = None,
    surface_file: SurfaceFileOpt = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Static top-k recall of the required routes for the original queries (a fact about the surface)."""
    from runtime.report.console import make_console
    from schemarouter.application.retrieval import RecallRequest, show_surface_recall
    from schemarouter.application.surfaces import choose_surface

    project = paths(ctx, experiment)
    chosen = choose_surface(project, surface=surface, surface_file=surface_file)
    request = RecallRequest(catalogs, k, cells, misses, retriever_spec)
    show_surface_recall(project, chosen, request, make_console())


@bench_app.command("retrieval")
def bench_retrieval_command(
    ctx: typer.Context,
    synthetic: SyntheticOpt = "5000,50000",
    repeats: RepeatsOpt = 5,
    bm25s: Bm25sOpt = True,
    strategies: StrategiesOpt = True,
    study_out: StudyOutOpt = None,
    surface: SurfaceOpt = None,
    surface_file: SurfaceFileOpt = None,
    experiment: ExperimentOpt = None,
) -> None:
    """p50/p95 µs per query (original, state-aware), build time, ratios to raw Tantivy and bm25s; on a
    pilot surface, the retrieval-strategy study too."""
    from runtime.report.command_progress import CommandProgress
    from runtime.report.console import make_console
    from schemarouter.application.retrieval import BenchRetrievalRequest, show_bench_retrieval
    from schemarouter.application.surfaces import choose_surface

    project = paths(ctx, experiment)
    chosen = choose_surface(project, surface=surface, surface_file=surface_file)
    request = BenchRetrievalRequest(synthetic, repeats, bm25s, strategies, study_out)
    with CommandProgress("sr bench retrieval") as progress:
        show_bench_retrieval(project, chosen, request, make_console(log_width=220), progress)
