"""`sr retrieval eval`: option parsing over schemarouter.application.retrieval_eval."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, app, paths

# The application layer (numpy, Tantivy) and rich are imported where used, so `sr --help` stays light.
# Kept equal to schemarouter.application.retrieval_eval's (tests/test_retrieval_eval.py checks it).
SEED_NAME = "retrieval_eval.bootstrap"
DEFAULT_SEED = 20261201
DEFAULT_RESAMPLES = 10_000

retrieval_app = typer.Typer(help="Retrieval alone, on any catalog: every strategy against judged queries.")
app.add_typer(retrieval_app, name="retrieval")


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
    from runtime.report.command_progress import CommandProgress
    from runtime.report.console import make_console
    from schemarouter.application.retrieval_eval import EvalRequest, show_evaluation

    request = EvalRequest(catalog_file, queries, seed, resamples, json_out, markdown_out, retriever_spec)
    with CommandProgress("sr retrieval eval") as progress:
        show_evaluation(paths(ctx, experiment), request, make_console(log_width=200), progress)
