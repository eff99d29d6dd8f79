"""``schemarouter.retrieval.evaluate(catalog, queries)``: every strategy on judged queries."""

from __future__ import annotations

from pathlib import Path

from runtime.core.progress import Progress
from schemarouter.api.project import ProjectArg, project_paths
from schemarouter.application.retrieval_eval import DEFAULT_RESAMPLES, DEFAULT_SEED, EvalReport

__all__ = ["EvalReport", "evaluate"]


def evaluate(
    catalog: Path | str,
    queries: Path | str,
    *,
    project: ProjectArg = ".",
    retriever_spec: Path | None = None,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    progress: Progress | None = None,
) -> EvalReport:
    """Recall@k, nDCG@10 and MRR of every registered strategy over the catalog file ``catalog`` on the
    judged query file ``queries`` (JSON lines), with percentile bootstrap intervals. ``progress`` gets
    each stage and each strategy's queries as ``runtime.core.progress.Step``s."""
    from schemarouter.application.retrieval_eval import evaluate_retrieval

    return evaluate_retrieval(
        project=project_paths(project),
        catalog_file=Path(catalog),
        queries_file=Path(queries),
        spec=retriever_spec,
        seed=seed,
        resamples=resamples,
        progress=progress,
    )
