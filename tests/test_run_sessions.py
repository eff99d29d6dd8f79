"""Run directories: manifest, atomic commits, resume, infrastructure events, worker loss, locking."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from run_fake_engine import FakeEngine
from run_support import execute, request, small_scope

from runtime.core.errors import SchemaRouterError
from runtime.run import EpisodeKey, Shard, read_manifest
from runtime.run.resultset import load_result_set, read_terminal_outcomes
from runtime.run.rundir import SessionLock, open_run_dir
from runtime.run.store import EpisodeStore
from runtime.run.trace_blob import pack_trace


def _metrics_by_key(run_dir: Path) -> dict[EpisodeKey, dict]:
    return {o.key: o.metrics for o in read_terminal_outcomes(load_result_set([run_dir]))}


def test_manifest_records_identity_and_tz_aware_times(tmp_path: Path) -> None:
    run_dir = execute(tmp_path, request(small_scope()))
    m = read_manifest(run_dir)
    assert m.run_id == run_dir.name and m.run_id.endswith(m.config_hash.removeprefix("sha256:")[:8])
    assert m.freeze.root_hash and not m.freeze.draft
    assert m.episodes == 72 and m.shard == Shard(index=1, count=1)
    assert {"python", "numpy", "pydantic"} <= set(m.packages)
    assert m.created_at.tzinfo is not None
    (session,) = m.sessions
    assert session.finished_at is not None and session.finished_at.tzinfo is not None
    assert session.committed == 72 and session.infrastructure_events == 0


def test_two_workers_commit_the_same_episodes_as_one(tmp_path: Path) -> None:
    one = execute(tmp_path / "a", request(small_scope()), workers=1)
    two = execute(tmp_path / "b", request(small_scope()), workers=2)
    assert _metrics_by_key(one) == _metrics_by_key(two)


def test_a_duplicate_commit_is_refused_and_leaves_the_row_unchanged(tmp_path: Path) -> None:
    run_dir = execute(tmp_path, request(small_scope()))
    key = small_scope().episode_keys()[0]
    with EpisodeStore(run_dir) as store:
        before = store.read_outcomes([key])
        with pytest.raises(SchemaRouterError, match="already committed"):
            store.commit_episode(
                key, metrics={"task_pass": 0}, wall_latency_ms=1.0, trace_zlib=pack_trace("{}"), session=9
            )
        assert store.read_outcomes([key]) == before


def test_a_trace_packed_in_the_worker_is_stored_as_sent_and_reads_back_as_its_json(tmp_path: Path) -> None:
    """Workers send the trace packed (runtime/run/trace_blob.py); the store keeps those bytes unchanged
    (the same bytes the parent packed before, zlib level 1) and reads the JSON back."""
    import sqlite3
    import zlib

    trace = '{"turns": [{"text": "r\\u00e9sum\\u00e9 \\u2713"}], "n": 1}'
    key = EpisodeKey("t1", "C", 100)
    with EpisodeStore(tmp_path, create=True) as store:
        store.commit_episode(key, metrics={}, wall_latency_ms=None, trace_zlib=pack_trace(trace), session=1)
        assert store.read_trace(key) == trace
    (blob,) = (
        sqlite3.connect(tmp_path / "episodes.sqlite").execute("SELECT trace_zlib FROM episodes").fetchone()
    )
    assert bytes(blob) == pack_trace(trace) == zlib.compress(trace.encode("utf-8"), 1)


def test_infrastructure_events_are_never_results_and_resume_resolves_them(tmp_path: Path) -> None:
    scope = small_scope()
    failing = {k.label() for k in scope.episode_keys()[5:8]}
    run_dir = execute(
        tmp_path, request(scope), engine=FakeEngine(fail_keys=frozenset(failing), tasks=scope.tasks)
    )
    state = load_result_set([run_dir]).dirs[0]
    assert len(state.committed) == 72 - 3
    assert {e.key for e in state.unresolved} == set(scope.episode_keys()[5:8])
    assert all(e.kind == "episode_exception" and "timeout" in e.message for e in state.unresolved)
    assert not state.shard_complete

    execute(tmp_path, request(scope), resume=True)
    state = load_result_set([run_dir]).dirs[0]
    assert state.shard_complete and not state.unresolved and len(state.events) == 3
    sessions = read_manifest(run_dir).sessions
    assert [s.committed for s in sessions] == [69, 3]


def test_a_dead_worker_loses_only_in_flight_episodes(tmp_path: Path) -> None:
    scope = small_scope()
    crash = scope.episode_keys()[30]
    engine = FakeEngine(crash_keys=frozenset({crash.label()}), tasks=scope.tasks)
    run_dir = execute(tmp_path, request(scope), engine=engine, workers=2)
    state = load_result_set([run_dir]).dirs[0]
    assert crash not in state.committed
    assert crash in {e.key for e in state.unresolved if e.kind == "worker_lost"}
    assert state.committed.isdisjoint(e.key for e in state.unresolved)

    execute(tmp_path, request(scope), resume=True, workers=2)
    assert load_result_set([run_dir]).dirs[0].shard_complete


def test_resume_refuses_a_different_configuration(tmp_path: Path) -> None:
    run_dir = execute(tmp_path, request(small_scope()))
    other = request(small_scope(), freeze_hash="0" * 64)
    with pytest.raises(SchemaRouterError, match="freeze root hash"):
        open_run_dir(other, project_root=tmp_path, runs_dir=tmp_path / "runs", run_dir=run_dir, resume=True)
    with pytest.raises(SchemaRouterError, match="no run directory"):
        open_run_dir(other, project_root=tmp_path, runs_dir=tmp_path / "runs", run_dir=None, resume=True)


def test_resume_without_run_dir_finds_the_newest_matching_run(tmp_path: Path) -> None:
    first = execute(tmp_path, request(small_scope()))
    found, _ = open_run_dir(
        request(small_scope()), project_root=tmp_path, runs_dir=tmp_path / "runs", run_dir=None, resume=True
    )
    assert found == first


def test_new_run_refuses_an_existing_run_directory(tmp_path: Path) -> None:
    run_dir = execute(tmp_path, request(small_scope()))
    with pytest.raises(SchemaRouterError, match="--resume"):
        open_run_dir(
            request(small_scope()),
            project_root=tmp_path,
            runs_dir=tmp_path / "runs",
            run_dir=run_dir,
            resume=False,
        )


def test_one_session_at_a_time_per_directory(tmp_path: Path) -> None:
    run_dir = execute(tmp_path, request(small_scope()))
    with (
        SessionLock(run_dir),
        pytest.raises(SchemaRouterError, match="another process"),
        SessionLock(run_dir),
    ):
        pass


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers fork on Linux only")
def test_forked_workers_inherit_the_engine_the_parent_loaded(tmp_path: Path) -> None:
    scope = small_scope()
    loads, runs = tmp_path / "loads.txt", tmp_path / "runs.txt"
    engine = FakeEngine(tasks=scope.tasks, load_log=loads, run_log=runs)
    run_dir = execute(tmp_path / "run", request(scope), engine=engine, workers=2)
    assert load_result_set([run_dir]).dirs[0].shard_complete
    assert loads.read_text().split() == [str(os.getpid())]  # once, in this (the parent) process
    assert str(os.getpid()) not in set(runs.read_text().split())  # episodes ran in the workers


def test_an_engine_that_fails_to_load_leaves_an_event_until_a_session_loads_it(tmp_path: Path) -> None:
    scope = small_scope()
    for workers in (1, 2):
        root = tmp_path / f"w{workers}"
        run_dir = execute(
            root, request(scope), engine=FakeEngine(fail_load=True, tasks=scope.tasks), workers=workers
        )
        state = load_result_set([run_dir]).dirs[0]
        assert not state.committed and state.unresolved and not state.shard_complete
        assert {e.kind for e in state.unresolved} == {"engine_load"}
        execute(root, request(scope), resume=True, workers=workers)
        state = load_result_set([run_dir]).dirs[0]
        assert state.shard_complete and not state.unresolved
