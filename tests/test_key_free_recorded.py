"""The key-free answers a run records as it goes are the ones the diagnostics would search for, and
they are the answers of ranking the whole catalog.

Workers answer the refresh anatomy's question (which of a refresh's slots its text matches without the
state JSON's key names, and which that text ranks as high) on their own index while the episode is
fresh; a scoring in the same process then builds no index and searches nothing. These tests run real
0.14 episodes and compare the recorded answers with a probe that indexes the catalog and searches
itself, as `sr score` in another process does, and both with the definition: the full key-free ranking
of the catalog, its routes among the slots and its first len(slots).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.diagnostics.key_names import KeyNameProbe
from runtime.engine import run_episode
from runtime.engine.key_free_notes import key_free_matches
from runtime.retrieval import RetrieverSpec
from runtime.retrieval.index import RetrievalIndex
from runtime.retrieval.key_free import (
    STATE_AWARE_QUERY,
    KeyFreeKey,
    KeyFreeMatch,
    key_free_match,
    refresh_routes,
    without_key_names,
)
from runtime.run.engine_port import EngineAdapter, LoadedEngine
from runtime.run.outcomes import Sink, run_one
from runtime.run.scope import EpisodeKey
from schemarouter.application.episode import load_engine
from schemarouter.project import ProjectPaths

ROOT = Path(__file__).resolve().parents[1]
CATALOG = 100
SIZES = (100, 500)


@pytest.fixture(scope="module")
def resources():  # type: ignore[no-untyped-def]
    return load_engine(paths=ProjectPaths.at(ROOT, experiment="0.14"), catalog_sizes=SIZES)


def _state_aware(resources) -> str:  # type: ignore[no-untyped-def]
    return next(c.id for c in resources.compiled.conditions if c.policy == "state_refresh")


def _refreshes(trace: Any) -> list[tuple[str, tuple[str, ...]]]:
    """(text, slots) of every state-aware refresh after the first turn."""
    return [
        (str(c["text"]), refresh_routes(c))
        for t in trace.turns[1:]
        for c in t.retrieval_calls
        if c.get("query_kind") == STATE_AWARE_QUERY
    ]


def _by_definition(index: RetrievalIndex, stripped: str, routes: tuple[str, ...]) -> KeyFreeMatch:
    """The answer as the diagnostics first defined it: rank every route the text matches."""
    ranking = index.search(stripped, index.size).route_ids
    return KeyFreeMatch(matched=frozenset(ranking) & frozenset(routes), top=ranking[: len(routes)])


@pytest.fixture(scope="module")
def refreshes(resources) -> dict[int, list[tuple[str, tuple[str, ...]]]]:  # type: ignore[no-untyped-def]
    """Every refresh of SR-5-STATE-AWARE over the whole surface at catalogs 100 and 500."""
    condition = _state_aware(resources)
    out: dict[int, list[tuple[str, tuple[str, ...]]]] = {}
    for size in SIZES:
        out[size] = [
            r
            for task_id in sorted(resources.tasks)
            for r in _refreshes(
                run_episode(
                    resources=resources,
                    task=resources.tasks[task_id],
                    condition_id=condition,
                    catalog_size=size,
                )
            )
        ]
    return out


def test_every_refresh_of_the_surface_gets_the_full_rankings_answer(resources, refreshes) -> None:  # type: ignore[no-untyped-def]
    for size in SIZES:
        index = resources.catalog(size).index
        assert len(refreshes[size]) > 300  # every refresh of 180 tasks, not a handful
        keyed = 0
        for text, routes in refreshes[size]:
            stripped = without_key_names(text)
            assert stripped is not None
            answer = key_free_match(index, stripped, routes)
            assert answer == _by_definition(index, stripped, routes), (size, text, routes)
            keyed += not frozenset(routes) <= frozenset(answer.top)
        assert keyed  # some slots are held by the key names: the comparison is not vacuous


@settings(max_examples=150, derandomize=True, deadline=None)
@given(data=st.data())
def test_any_text_and_any_slots_get_the_full_rankings_answer(resources, data: st.DataObject) -> None:  # type: ignore[no-untyped-def]
    """Texts made of catalog words, state values and noise; slots from anywhere in the catalog."""
    index = resources.catalog(CATALOG).index
    words = sorted({w for e in resources.catalog(CATALOG).by_route.values() for w in e.route_id.split(".")})
    text = " ".join(
        data.draw(
            st.lists(st.one_of(st.sampled_from(words), st.text(max_size=8)), max_size=30), label="words"
        )
    )
    routes = tuple(
        data.draw(st.lists(st.sampled_from(index.route_ids), max_size=15, unique=True), label="slots")
    )
    assert key_free_match(index, text, routes) == _by_definition(index, text, routes)


def test_slots_a_text_does_not_match_are_not_matched(resources) -> None:  # type: ignore[no-untyped-def]
    """``matched`` is tested, not only ``top``: a route's own ID matches it and not every other slot."""
    index = resources.catalog(CATALOG).index
    routes = index.route_ids[:15]
    answer = key_free_match(index, routes[0], routes)
    assert answer == _by_definition(index, routes[0], routes)
    assert routes[0] in answer.matched and answer.matched != frozenset(routes)
    assert key_free_match(index, "zzqx vvkj", routes) == KeyFreeMatch(matched=frozenset(), top=())


def test_recorded_answers_equal_a_probe_that_searches_itself(resources) -> None:  # type: ignore[no-untyped-def]
    condition = _state_aware(resources)
    recorded: dict[KeyFreeKey, KeyFreeMatch] = {}
    seen = []
    for task_id in sorted(resources.tasks)[:40]:
        trace = run_episode(
            resources=resources, task=resources.tasks[task_id], condition_id=condition, catalog_size=CATALOG
        )
        recorded.update(key_free_matches(resources, trace) or {})
        seen += _refreshes(trace)
    assert seen and recorded  # the surface has refreshes, and each was answered
    assert {(CATALOG, without_key_names(t), routes) for t, routes in seen} == set(recorded)

    spec = RetrieverSpec.from_compiled(resources.compiled)
    endpoints = list(resources.catalog(CATALOG).by_route.values())
    searching = KeyNameProbe(lambda: {CATALOG: RetrievalIndex.build(endpoints, spec)})
    built: list[int] = []

    def never() -> dict[int, RetrievalIndex]:
        built.append(1)
        return {}

    knowing = KeyNameProbe(never, recorded)
    for text, routes in seen:
        assert knowing.key_free_match(CATALOG, text, routes) == searching.key_free_match(
            CATALOG, text, routes
        )
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
