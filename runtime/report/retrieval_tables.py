"""The retrieval commands' tables: recall by catalog, stratum and language, and retrieval speed beside raw
Tantivy and bm25s (rich tables, built from the retrieval package's result types)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from runtime.retrieval.bench import CorpusBench, Timing
from runtime.retrieval.recall import RecallCell


def recall_table(title: str, cells: Sequence[RecallCell]) -> Table:
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


def bench_table(rows: Sequence[CorpusBench]) -> Table:
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
