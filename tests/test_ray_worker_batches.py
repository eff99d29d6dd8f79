"""A Ray actor's batch with --concurrency (runtime/run/executors/ray_worker.py), without Ray: the
batch's episodes run at once on the actor's pool, come back in the batch's order, and after a failure
that stops the session the episodes not started yet are not run (no record, no event: --resume runs
them), as ``run_batch`` does one at a time."""

from __future__ import annotations

import concurrent.futures as cf
import threading
import time
from collections.abc import Callable

from runtime.run.executors.ray_cluster import batch_size
from runtime.run.executors.ray_worker import Outcome, _run_on
from runtime.run.outcomes import Failure
from runtime.run.scope import EpisodeKey

KEYS = [EpisodeKey(f"S1-en-{i:02d}", "SR-5-STATIC", 100) for i in range(6)]


def _failure(stops: str | None) -> Failure:
    return Failure(kind="episode_exception", error_type="E", message="m", traceback="", stops_session=stops)


def test_a_batch_runs_at_once_and_comes_back_in_its_order() -> None:
    started = threading.Barrier(len(KEYS), timeout=10)  # every episode must be running at once

    def outcome(key: EpisodeKey) -> Outcome:
        started.wait()
        return _failure(None)

    with cf.ThreadPoolExecutor(len(KEYS)) as pool:
        out = _run_on(pool, list(reversed(KEYS)), outcome)
    assert [key for key, _ in out] == list(reversed(KEYS))


class _QueueingPool:
    """A pool with one thread, already busy: the first episode runs on submit, the others wait queued
    and start one second later unless cancelled meanwhile."""

    def __init__(self) -> None:
        self.ran: list[EpisodeKey] = []

    def submit(self, fn: Callable[[EpisodeKey], Outcome], key: EpisodeKey) -> cf.Future[Outcome]:
        future: cf.Future[Outcome] = cf.Future()
        if not self.ran:
            self._start(future, fn, key)
        else:
            threading.Timer(1.0, self._start, (future, fn, key)).start()
        return future

    def _start(
        self,
        future: cf.Future[Outcome],
        fn: Callable[[EpisodeKey], Outcome],
        key: EpisodeKey,
    ) -> None:
        if future.set_running_or_notify_cancel():
            self.ran.append(key)
            future.set_result(fn(key))


def test_after_a_stopping_failure_the_episodes_not_started_are_not_run() -> None:
    def outcome(key: EpisodeKey) -> Outcome:
        return _failure("the model server cannot be reached" if key == KEYS[0] else None)

    pool = _QueueingPool()
    out = _run_on(pool, KEYS, outcome)  # type: ignore[arg-type]
    assert [key for key, _ in out] == KEYS[:1]
    time.sleep(1.2)  # past the queued episodes' start
    assert pool.ran == KEYS[:1]


def test_batches_are_small_enough_for_every_thread_and_unchanged_without_concurrency() -> None:
    assert batch_size(2700, [1, 1]) == 8  # as before --concurrency meant anything on Ray
    assert batch_size(72, [1, 1]) == 4
    assert batch_size(2700, [128, 128]) == 7  # 384 episode threads: one batch of 7 each
    assert batch_size(24, [3, 2]) == 3
    assert batch_size(5, [3, 2]) == 1
