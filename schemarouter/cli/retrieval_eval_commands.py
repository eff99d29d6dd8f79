"""`sr retrieval eval`: option parsing over schemarouter.application.retrieval_eval."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, app, paths

# The application layer (numpy, Tantivy) and rich are imported where used, so `sr --help` stays light.
if TYPE_CHECKING:
    from rich.table import Table

    from schemarouter.application.retrieval_eval import EvalReport

# Kept equal to schemarouter.application.retrieval_eval's (tests/test_retrieval_eval.py checks it).
SEED_NAME = "retrieval_eval.bootstrap"
DEFAULT_SEED = 20261201
DEFAULT_RESAMPLES = 10_000

retrieval_app = typer.Typer(help="Retrieval alone, on any catalog: every strategy against judged queries.")
app.add_typer(retrieval_app, name="retrieval")

_HEADERS = {
    "recall_at_1": "R@1",
    "recall_at_5": "R@5",
    "recall_at_10": "R@10",
    "ndcg_at_10": "nDCG@10",
    "mrr": "MRR",
}


@retrieval_app.command("eval")
def eval_command(
    ctx: typer.Context,
    catalog_file: Annotated[
        Path, typer.Option("--catalog-file", help="The catalog file.", show_default=False)
    ],
    queries: Annotated[
        Path, typer.Option("--queries", help="JSON Lines: id, query, relevant route IDs, optional state.")
    ],
    seed: Annotated[int, typer.Option(help=f"Seed of the bootstrap ({SEED_NAME}).")] = DEFAULT_SEED,
    resamples: Annotated[
        int, typer.Option(min=100, help="Bootstrap resamples over queries.")
    ] = DEFAULT_RESAMPLES,
    json_out: Annotated[Path | None, typer.Option("--json", help="Also write the report as JSON.")] = None,
    markdown_out: Annotated[
        Path | None, typer.Option("--markdown", help="Also write the table as markdown.")
    ] = None,
    retriever_spec: Annotated[
        Path | None,
        typer.Option("--retriever-spec", help="Retriever spec to use instead of spec/retriever.yaml."),
    ] = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Recall@1/5/10, nDCG@10 and MRR of every retrieval strategy, with 95% bootstrap intervals."""
    from schemarouter.application.retrieval_eval import evaluate_retrieval
    from schemarouter.atomic_write import check_output_file, write_text_atomic
    from schemarouter.runtime.report.console import make_console

    for path, option in ((json_out, "--json"), (markdown_out, "--markdown")):
        if path is not None:
            check_output_file(path, option=option)
    report = evaluate_retrieval(
        project=paths(ctx, experiment),
        catalog_file=catalog_file,
        queries_file=queries,
        spec=retriever_spec,
        seed=seed,
        resamples=resamples,
    )
    if json_out is not None:
        write_text_atomic(json_out, report.to_json())
    if markdown_out is not None:
        write_text_atomic(markdown_out, report.to_markdown())
    console = make_console(log_width=200)
    console.print(_table(report))
    for code, why in report.not_built:
        console.print(f"not built: {code}: {why}", markup=False, highlight=False)
    if report.queries_with_state == 0:
        console.print("no query carries a state: research use (query+state) not evaluated", markup=False)


def _table(report: EvalReport) -> Table:
    from rich.table import Table

    from schemarouter.runtime.retrieval.evaluation import METRICS

    title = (
        f"{report.catalog_file} ({report.queries} queries, {report.queries_with_state} with state); "
        f"mean [95% CI], {report.resamples:,} resamples, seed {SEED_NAME}={report.seed}"
    )
    table = Table(title=title)
    table.add_column("strategy")
    table.add_column("use")
    table.add_column("queries", justify="right")
    for metric in METRICS:
        table.add_column(_HEADERS[metric], justify="right")
    for r in report.results:
        cells = [f"{e.mean:.3f} [{e.low:.3f}, {e.high:.3f}]" for e in (r.metrics[m] for m in METRICS)]
        table.add_row(r.strategy, r.use, str(r.queries), *cells)
    return table
