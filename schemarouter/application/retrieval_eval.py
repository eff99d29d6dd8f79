"""Retrieval on any catalog file: ``sr retrieve --catalog-file`` and ``sr retrieval eval``.

``evaluate_retrieval`` ranks every judged query with every strategy (``retrieval_strategies``) over the
whole catalog, scores each ranking (``runtime/retrieval/evaluation.py``: Recall@1/5/10, nDCG@10,
MRR) and bootstraps each mean over queries with a named seed. Static use is scored on every query;
research use (query + state) on the queries that carry a state. The report is deterministic: same
catalog, queries, spec, seed and code give the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from runtime.catalog.io import load_catalog_file
from runtime.core.progress import Progress, announce, counted
from runtime.retrieval.call import RetrievalCall
from runtime.retrieval.evaluation import (
    METRICS,
    Estimate,
    estimate,
    query_metrics,
    resample_matrix,
)
from runtime.spec_model.retriever import RetrieverSpec
from runtime.state.state_file import Vocabulary, read_state_file
from schemarouter.application.retrieval_io import compiled_experiment, read_retriever_file
from schemarouter.application.retrieval_queries import JudgedQuery, read_queries
from schemarouter.application.retrieval_strategies import all_strategies, one_strategy
from schemarouter.project import ProjectPaths

SEED_NAME = "retrieval_eval.bootstrap"
DEFAULT_SEED = 20261201
DEFAULT_RESAMPLES = 10_000
REPORT_VERSION = 1


def retrieve_in_file(
    *,
    project: ProjectPaths,
    catalog_file: Path,
    query: str,
    state_file: Path | None,
    k: int,
    spec: Path | None,
    strategy: str | None = None,
) -> RetrievalCall:
    """Rank one query (with a state file: the research use) over any catalog file."""
    catalog, _digest = load_catalog_file(catalog_file)
    retriever_spec = _spec(project, spec)
    state = None if state_file is None else read_state_file(state_file, vocabulary=Vocabulary.of(catalog))
    built = one_strategy(catalog, retriever_spec, strategy, cache_dir=project.build_dir / "retrieval")
    if state is None:
        return built.static.rank(query, k)
    return built.research.rank(query, state, k)


def _spec(project: ProjectPaths, override: Path | None) -> RetrieverSpec:
    """The retriever spec (the experiment's, or ``override``), after compiling the experiment once: that
    installs its state contract, which holds every state read from here on."""
    compiled = compiled_experiment(project)
    return (
        RetrieverSpec.from_compiled(compiled) if override is None else read_retriever_file(project, override)
    )


@dataclass(frozen=True)
class StrategyResult:
    """One strategy in one use: the queries scored and each metric's mean with its interval."""

    strategy: str
    use: str  # "query" or "query+state"
    queries: int
    metrics: dict[str, Estimate]


@dataclass(frozen=True)
class EvalReport:
    catalog_file: str
    catalog_digest: str
    queries_file: str
    queries: int
    queries_with_state: int
    seed: int
    resamples: int
    results: tuple[StrategyResult, ...]
    not_built: tuple[tuple[str, str], ...]

    def to_markdown(self) -> str:
        """The results as a markdown table (mean [95% CI]), headed by what they were computed on."""
        headers = tuple(_HEADERS[m] for m in METRICS)
        lines = [
            f"`{self.catalog_file}` ({self.catalog_digest[:19]}…), `{self.queries_file}`: {self.queries} "
            f"queries, {self.queries_with_state} with a state; mean [95% CI], percentile bootstrap over "
            f"queries, {self.resamples:,} resamples, seed {SEED_NAME} = {self.seed}.",
            "",
            "| strategy | use | queries | " + " | ".join(headers) + " |",
            "| --- | --- | --- | " + " | ".join("---" for _ in headers) + " |",
        ]
        for r in self.results:
            cells = [f"{e.mean:.3f} [{e.low:.3f}, {e.high:.3f}]" for e in (r.metrics[m] for m in METRICS)]
            lines.append(f"| {r.strategy} | {r.use} | {r.queries} | " + " | ".join(cells) + " |")
        lines.append(f"\n{LEGEND}")
        lines.extend(f"\nnot built: {code}: {why}" for code, why in self.not_built)
        return "\n".join(lines) + "\n"

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "report_version": REPORT_VERSION,
            "catalog": {"file": self.catalog_file, "digest": self.catalog_digest},
            "queries": {
                "file": self.queries_file,
                "count": self.queries,
                "with_state": self.queries_with_state,
            },
            "bootstrap": {
                "seed": {"name": SEED_NAME, "value": self.seed},
                "resamples": self.resamples,
                "confidence": 0.95,
                "method": "percentile over queries",
            },
            "results": [
                {
                    "strategy": r.strategy,
                    "use": r.use,
                    "queries": r.queries,
                    "metrics": {
                        m: {"mean": e.mean, "ci_low": e.low, "ci_high": e.high} for m, e in r.metrics.items()
                    },
                }
                for r in self.results
            ],
            "not_built": [{"strategy": code, "why": why} for code, why in self.not_built],
        }
        return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def evaluate_retrieval(
    *,
    project: ProjectPaths,
    catalog_file: Path,
    queries_file: Path,
    spec: Path | None,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    progress: Progress | None = None,
) -> EvalReport:
    """Every strategy's metrics on ``queries_file`` over ``catalog_file``, with bootstrap intervals
    (``progress``: building the strategies, then each strategy's queries)."""
    announce(progress, "reading the retriever spec and the queries", 0)
    catalog, digest = load_catalog_file(catalog_file)
    retriever_spec = _spec(project, spec)
    queries = read_queries(queries_file, catalog)
    with_state = [q for q in queries if q.state is not None]
    announce(progress, "building the strategies", 0)
    strategies = all_strategies(catalog, retriever_spec, cache_dir=project.build_dir / "retrieval")
    everyone = resample_matrix(len(queries), seed=seed, resamples=resamples)
    stateful = resample_matrix(len(with_state), seed=seed, resamples=resamples) if with_state else None
    depth = catalog.size
    results = []
    for built in strategies.built:
        ranked = counted(progress, f"{built.code}: queries", queries, unit="queries")
        static = [query_metrics(built.static.rank(q.query, depth).route_ids, q.relevant) for q in ranked]
        results.append(_result(built.code, "query", static, everyone))
        if stateful is not None:
            stated = counted(progress, f"{built.code}: queries with a state", with_state, unit="queries")
            research = [_research(built, q, depth) for q in stated]
            results.append(_result(built.code, "query+state", research, stateful))
    return EvalReport(
        catalog_file=str(catalog_file),
        catalog_digest=digest,
        queries_file=str(queries_file),
        queries=len(queries),
        queries_with_state=len(with_state),
        seed=seed,
        resamples=resamples,
        results=tuple(results),
        not_built=strategies.not_built,
    )


def _research(built: Any, q: JudgedQuery, depth: int) -> dict[str, float]:
    assert q.state is not None
    return query_metrics(built.research.rank(q.query, q.state, depth).route_ids, q.relevant)


def _result(code: str, use: str, rows: list[dict[str, float]], matrix: Any) -> StrategyResult:
    return StrategyResult(
        strategy=code,
        use=use,
        queries=len(rows),
        metrics={m: estimate([r[m] for r in rows], matrix) for m in METRICS},
    )


@dataclass(frozen=True)
class EvalRequest:
    """`sr retrieval eval`: judged queries over a catalog file; optional JSON and markdown copies."""

    catalog_file: Path
    queries: Path
    seed: int = DEFAULT_SEED
    resamples: int = DEFAULT_RESAMPLES
    json_out: Path | None = None
    markdown_out: Path | None = None
    spec: Path | None = None


def show_evaluation(
    project: ProjectPaths, r: EvalRequest, console: Console, progress: Progress | None = None
) -> EvalReport:
    """Evaluate, write the requested copies (checked before any work), print the table."""
    from schemarouter.output_guard import output_guard

    guard = output_guard(project.root, sources=[p for p in (r.catalog_file, r.queries, r.spec) if p])
    for path, option in ((r.json_out, "--json"), (r.markdown_out, "--markdown")):
        if path is not None:
            guard.file(path, option=option)
    report = evaluate_retrieval(
        project=project, catalog_file=r.catalog_file, queries_file=r.queries, spec=r.spec, seed=r.seed,
        resamples=r.resamples, progress=progress,
    )  # fmt: skip
    if r.json_out is not None:
        guard.write_text(r.json_out, report.to_json(), option="--json")
    if r.markdown_out is not None:
        guard.write_text(r.markdown_out, report.to_markdown(), option="--markdown")
    console.print(_table(report))
    for code, why in report.not_built:
        console.print(f"not built: {code}: {why}", markup=False, highlight=False)
    if report.queries_with_state == 0:
        console.print("no query carries a state: research use (query+state) not evaluated", markup=False)
    return report


_HEADERS = {
    "success_at_1": "S@1",
    "success_at_5": "S@5",
    "success_at_10": "S@10",
    "recall_at_1": "R@1",
    "recall_at_5": "R@5",
    "recall_at_10": "R@10",
    "ndcg_at_10": "nDCG@10",
    "mrr": "MRR",
}
LEGEND = (
    "S@k: success@k, the share of queries with at least one relevant route in the top k; "
    "R@k: recall@k, the mean share of a query's relevant routes in the top k."
)


def _table(report: EvalReport) -> Table:
    from runtime.retrieval.evaluation import METRICS

    title = (
        f"{report.catalog_file} ({report.queries} queries, {report.queries_with_state} with state); "
        f"mean [95% CI], {report.resamples:,} resamples, seed {SEED_NAME}={report.seed}"
    )
    table = Table(title=title, caption=LEGEND)
    table.add_column("strategy")
    table.add_column("use")
    table.add_column("queries", justify="right")
    for metric in METRICS:
        table.add_column(_HEADERS[metric], justify="right")
    for r in report.results:
        cells = [f"{e.mean:.3f} [{e.low:.3f}, {e.high:.3f}]" for e in (r.metrics[m] for m in METRICS)]
        table.add_row(r.strategy, r.use, str(r.queries), *cells)
    return table
