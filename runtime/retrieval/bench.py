"""Speed of retrieval, measured side by side with raw Tantivy and bm25s on the same corpus and queries.

For each corpus (a real catalog or a scaled synthetic one):
1. build the RetrievalIndex (timed: the index build time);
2. ours: ``StaticRetriever.rank(query, 5)`` and ``StateAwareRetriever.rank(query, state, 5)``, end to end
   (analysis, query construction, search, audit record);
3. raw Tantivy: the same queries prebuilt once, then only ``searcher.search(query, 5)``;
4. bm25s (numpy backend) over the same terms: each endpoint's bag of our analyzers' terms; per query,
   our analysis, then ``retrieve`` (its own tokenizer would keep ``executed_route_ids`` or a CJK run
   as one unmatched token and so answer an easier question).

Every measurement runs ``repeats`` passes over all queries after one untimed warm-up pass;
p50/p95 are over all timed calls. Nothing here is asserted: speed is reported, not tested.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from runtime.catalog.model import Endpoint
from runtime.retrieval.document import source_text
from runtime.retrieval.index import RetrievalIndex
from runtime.retrieval.retrievers import STATE_JOINER, StateAwareRetriever, StaticRetriever
from runtime.simulator.result import ObservedField, ToolResult
from runtime.spec_model.retriever import RetrieverSpec
from runtime.state.model import ObservableState


@dataclass(frozen=True)
class Timing:
    """Per-call latency percentiles in microseconds."""

    p50_us: float
    p95_us: float
    calls: int


@dataclass(frozen=True)
class CorpusBench:
    """All measurements on one corpus."""

    label: str
    endpoints: int
    build_s: float
    ours_original: Timing
    ours_state: Timing
    raw_original: Timing
    raw_state: Timing
    bm25s_build_s: float | None
    bm25s_original: Timing | None
    bm25s_state: Timing | None


@dataclass(frozen=True)
class BenchQuery:
    """An original query and the observable state a refresh would carry with it."""

    query: str
    state: ObservableState


def state_after(endpoint: Endpoint) -> ObservableState:
    """A realistic state: ``endpoint`` executed successfully, its declared outputs observed."""
    fields = tuple(
        ObservedField.of(f, f"id-{i:04d}" if f.stable_identifier else None)
        for i, f in enumerate(endpoint.outputs)
    )
    result = ToolResult(route_id=endpoint.route_id, status="ok", fields=fields)
    return ObservableState.initial().after_result(result)


def _timed(fn: Callable[[int], object], n: int, repeats: int) -> Timing:
    for i in range(n):
        fn(i)
    samples: list[float] = []
    for _ in range(repeats):
        for i in range(n):
            started = time.perf_counter_ns()
            fn(i)
            samples.append((time.perf_counter_ns() - started) / 1000)
    samples.sort()
    q = statistics.quantiles(samples, n=100, method="inclusive") if len(samples) > 1 else samples * 99
    return Timing(p50_us=statistics.median(samples), p95_us=q[94], calls=len(samples))


def bench_corpus(
    label: str,
    endpoints: Sequence[Endpoint],
    spec: RetrieverSpec,
    queries: Sequence[BenchQuery],
    *,
    repeats: int,
    k: int = 5,
    with_bm25s: bool = True,
) -> CorpusBench:
    """Measure one corpus."""
    started = time.perf_counter()
    index = RetrievalIndex.build(endpoints, spec)
    build_s = time.perf_counter() - started
    static, aware = StaticRetriever(index), StateAwareRetriever(index)
    originals = [q.query for q in queries]
    composed = [q.query + STATE_JOINER + q.state.canonical_json() for q in queries]
    n = len(queries)

    ours_original = _timed(lambda i: static.rank(originals[i], k), n, repeats)
    ours_state = _timed(lambda i: aware.rank(queries[i].query, queries[i].state, k), n, repeats)
    prebuilt_original = [index.query(t) for t in originals]
    prebuilt_state = [index.query(t) for t in composed]
    raw_original = _timed(lambda i: _raw(index, prebuilt_original[i], k), n, repeats)
    raw_state = _timed(lambda i: _raw(index, prebuilt_state[i], k), n, repeats)

    bm25s_build = bm25s_original = bm25s_state = None
    if with_bm25s:
        bm25s_build, search = _bm25s(index, endpoints, k)
        bm25s_original = _timed(lambda i: search(originals[i]), n, repeats)
        bm25s_state = _timed(lambda i: search(composed[i]), n, repeats)
    return CorpusBench(
        label=label,
        endpoints=len(endpoints),
        build_s=build_s,
        ours_original=ours_original,
        ours_state=ours_state,
        raw_original=raw_original,
        raw_state=raw_state,
        bm25s_build_s=bm25s_build,
        bm25s_original=bm25s_original,
        bm25s_state=bm25s_state,
    )


def _raw(index: RetrievalIndex, query: object, k: int) -> object:
    return index.raw_search(query, k) if query is not None else []  # type: ignore[arg-type]


def _bm25s(
    index: RetrievalIndex, endpoints: Sequence[Endpoint], k: int
) -> tuple[float, Callable[[str], object]]:
    """bm25s over the very terms our analyzers produce (one bag per endpoint), so both engines score
    the same tokens; a query's cost includes the same analysis ours pays."""
    import bm25s  # dev dependency: only the benchmark needs it

    spec = index.spec
    corpus = [
        [t for f in spec.fields for t in index.analyzer(f.analyzer).terms(source_text(e, f.sources))]
        for e in sorted(endpoints, key=lambda e: e.route_id)
    ]
    started = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(corpus, show_progress=False)
    build_s = time.perf_counter() - started
    depth = min(k, len(endpoints))
    analyzers = [index.analyzer(name) for name in dict.fromkeys(f.analyzer for f in spec.fields)]

    def search(text: str) -> object:
        tokens = [t for a in analyzers for t in a.terms(text)]
        return retriever.retrieve([tokens], k=depth, show_progress=False, n_threads=1)

    return build_s, search
