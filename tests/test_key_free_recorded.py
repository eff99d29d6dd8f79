"""The key-free rankings a run records as it goes are the ones the diagnostics would search for.

Workers answer the refresh anatomy's question (which routes a refresh's text matches without the state
JSON's key names) on their own index while the episode is fresh; a scoring in the same process then
builds no index and searches nothing. These tests run real 0.14 episodes and compare the recorded
answers with a probe that indexes the catalog and searches itself, as `sr score` in another process does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.diagnostics.key_names import KeyNameProbe
from runtime.engine import run_episode
from runtime.engine.key_free_notes import key_free_rankings
from runtime.retrieval import RetrieverSpec
from runtime.retrieval.index import RetrievalIndex
from runtime.retrieval.key_free import STATE_AWARE_QUERY, without_key_names
from runtime.run.engine_port import EngineAdapter, LoadedEngine
from runtime.run.outcomes import Sink, run_one
from runtime.run.scope import EpisodeKey
from schemarouter.application.episode import load_engine
from schemarouter.project import ProjectPaths

ROOT = Path(__file__).resolve().parents[1]
CATALOG = 100


@pytest.fixture(scope="module")
def resources():  # type: ignore[no-untyped-def]
    return load_engine(paths=ProjectPaths.at(ROOT, experiment="0.14"), catalog_sizes=(CATALOG,))


def _state_aware(resources) -> str:  # type: ignore[no-untyped-def]
    return next(c.id for c in resources.compiled.conditions if c.policy == "state_refresh")


def test_recorded_rankings_equal_a_probe_that_searches_itself(resources) -> None:  # type: ignore[no-untyped-def]
    condition = _state_aware(resources)
    recorded: dict[tuple[int, str], tuple[str, ...]] = {}
    refresh_texts = []
    for task_id in sorted(resources.tasks)[:40]:
        trace = run_episode(
            resources=resources, task=resources.tasks[task_id], condition_id=condition, catalog_size=CATALOG
        )
        recorded.update(key_free_rankings(resources, trace) or {})
        refresh_texts += [
            str(c["text"])
            for t in trace.turns[1:]
            for c in t.retrieval_calls
            if c.get("query_kind") == STATE_AWARE_QUERY
        ]
    assert refresh_texts and recorded  # the surface has refreshes, and each was answered
    assert {(CATALOG, without_key_names(t)) for t in refresh_texts} == set(recorded)

    spec = RetrieverSpec.from_compiled(resources.compiled)
    endpoints = list(resources.catalog(CATALOG).by_route.values())
    searching = KeyNameProbe(lambda: {CATALOG: RetrievalIndex.build(endpoints, spec)})
    built: list[int] = []

    def never() -> dict[int, RetrievalIndex]:
        built.append(1)
        return {}

    knowing = KeyNameProbe(never, recorded)
    for text in refresh_texts:
        assert knowing.ranking_without_keys(CATALOG, text) == searching.ranking_without_keys(CATALOG, text)
    assert knowing.searched == 0 and not built  # no index built, nothing searched
    assert searching.searched == len(recorded)


def test_the_session_keeps_what_its_workers_recorded(resources, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from runtime.run.store import EpisodeStore

    condition = _state_aware(resources)
    loaded = LoadedEngine(resources=resources, tasks=resources.tasks)
    keys = [EpisodeKey(t, condition, CATALOG) for t in sorted(resources.tasks)[:10]]
    with EpisodeStore(tmp_path, create=True) as store:
        sink = Sink(store=store, session=1, total=len(keys), on_progress=None)
        for key in keys:
            record = run_one(EngineAdapter(), loaded, key)
            assert not hasattr(record, "kind"), record  # a record, not a failure
            assert "key_free" not in record.trace_json  # never part of the trace
            sink.accept(key, record)
        summary = sink.summary(None)
    assert summary.committed == len(keys) and summary.key_free
    assert all(k[0] == CATALOG for k in summary.key_free)
