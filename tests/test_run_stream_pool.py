"""The streaming pool (`sr run --concurrency N --workers W`, W > 1: runtime/run/stream_pool.py).

Each worker keeps its share of N in flight and is refilled one key at a time, so no batch drains. What
must hold is the batch pool's contract: the same episodes committed once each, a dead worker losing
only the keys it held (each a worker_lost event that --resume runs again), and a stop that starts nothing
new.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from run_fake_engine import FakeEngine
from run_support import execute, request, small_scope

from runtime.run.resultset import load_result_set, read_terminal_outcomes
from runtime.run.store import STORE_FILE
from runtime.run.stream_pool import window


def _committed_rows(run_dir: Path) -> list[tuple[str, str, int]]:
    with sqlite3.connect(run_dir / STORE_FILE) as db:
        return list(db.execute("SELECT task_id, condition, catalog FROM episodes ORDER BY 1, 2, 3"))


def test_the_stream_commits_the_same_episodes_as_one_process(tmp_path: Path) -> None:
    one = execute(tmp_path / "a", request(small_scope()), workers=1)
    two = execute(tmp_path / "b", request(small_scope()), workers=2, threads=4)
    metrics = [{o.key: o.metrics for o in read_terminal_outcomes(load_result_set([d]))} for d in (one, two)]
    assert metrics[0] == metrics[1] and len(metrics[0]) == 72
    assert _committed_rows(one) == _committed_rows(two)


def test_a_dead_worker_loses_only_the_keys_it_held(tmp_path: Path) -> None:
    scope = small_scope()
    keys = scope.episode_keys()
    crash = keys[30]
    engine = FakeEngine(crash_keys=frozenset({crash.label()}), tasks=scope.tasks, sleep_s=0.01)
    run_dir = execute(tmp_path, request(scope), engine=engine, workers=2, threads=3)
    state = load_result_set([run_dir]).dirs[0]
    lost = {e.key for e in state.unresolved if e.kind == "worker_lost"}
    assert crash not in state.committed and crash in lost
    assert len(lost) <= window(3)  # only what the dead worker held
    assert state.committed.isdisjoint(lost)
    assert not state.shard_complete  # the session stopped scheduling

    execute(tmp_path, request(scope), resume=True, workers=2, threads=3)
    state = load_result_set([run_dir]).dirs[0]
    assert state.shard_complete and not state.unresolved
    assert len(_committed_rows(run_dir)) == len(keys) == len(set(_committed_rows(run_dir)))


def test_a_stop_starts_nothing_new_and_resume_finishes(tmp_path: Path) -> None:
    scope = small_scope()
    keys = scope.episode_keys()
    failing = frozenset(k.label() for k in keys[:6])
    engine = FakeEngine(fail_keys=failing, tasks=scope.tasks, sleep_s=0.02)
    run_dir = execute(tmp_path, request(scope), engine=engine, workers=2, threads=2, max_events=3)
    state = load_result_set([run_dir]).dirs[0]
    # Stopped at the third event: at most what the two workers held then ran after it.
    assert len(state.committed) + len(state.unresolved) <= 6 + 2 * window(2)
    assert not state.shard_complete
    execute(tmp_path, request(scope), resume=True, workers=2, threads=2)
    state = load_result_set([run_dir]).dirs[0]
    assert state.shard_complete and not state.unresolved
    assert len(_committed_rows(run_dir)) == len(keys)
