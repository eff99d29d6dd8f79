"""Execute episodes and commit each one as it finishes.

Workers (processes, one ``LoadedEngine`` each) only compute, each with up to ``threads`` episodes in
flight (``in_flight.py``); the parent alone writes to the store, one
transaction per episode, so completion order never matters: outputs are later read back in canonical
order. With ``workers == 1`` everything runs in the calling process; with workers and threads the
workers stream (``stream_pool.py``); with workers and one thread each, this module's batch pool runs
them. The worker side is ``pool_worker.py``. Where workers fork (Linux), the
parent loads the engine once before the pool starts and every worker inherits it, instead of each
loading its own; if that load fails, each worker loads for itself, so a load failure is reported per
episode as before.

An exception while an episode runs becomes an infrastructure event for that episode; a worker that dies
takes its in-flight episodes with it, and each of them gets an event. Neither is ever a result, and the
next ``--resume`` re-runs them.

Registered as executor ``local`` by ``executors/local.py``; ``executors/ray_cluster.py`` is the other.
"""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from runtime.run import long_lived
from runtime.run.engine_port import EpisodeRecord
from runtime.run.in_flight import TICK_S, run_in_flight
from runtime.run.outcomes import (
    ExecutionRequest,
    ExecutionSummary,
    Failure,
    Sink,
    failure,
    run_batch,
    run_one,
)
from runtime.run.pool_worker import PRELOADED, WORKER, mp_context, preload, worker_init, worker_outcome
from runtime.run.scope import EpisodeKey
from runtime.run.stream_pool import execute_streaming

_T = TypeVar("_T")


def execute(request: ExecutionRequest) -> ExecutionSummary:
    """Run the request's keys (already minus the committed ones) and commit each finished episode.

    Stops scheduling new episodes after ``max_events`` infrastructure events in this session (a broken
    engine should not burn through thousands of episodes), or at once after a failure that stops the
    session (``Sink.stop_reason``); what was committed stays committed.
    """
    sink = request.sink()
    if not request.keys:
        return sink.summary(None)
    with long_lived.session():
        if request.workers <= 1:
            return _execute_inline(request, sink)
        if request.threads > 1:
            return execute_streaming(request, sink)
        return _execute_pool(request, sink)


def _execute_inline(request: ExecutionRequest, sink: Sink) -> ExecutionSummary:
    engine = request.engine
    try:
        loaded = engine.load(request.setup)
    except Exception as err:
        sink.fail(None, failure("engine_load", err))
        return sink.summary("the engine failed to load")
    long_lived.settle()
    if request.threads > 1:
        finished = run_in_flight(
            request.keys,
            lambda key: run_one(engine, loaded, key),
            threads=request.threads,
            on_outcome=sink.accept,
            should_stop=lambda: sink.stop_reason(request.max_events) is not None,
            on_tick=sink.tick,
        )
        return sink.summary(None if finished else sink.stop_reason(request.max_events))
    for key in request.keys:
        sink.accept(key, run_one(engine, loaded, key))
        stop = sink.stop_reason(request.max_events)
        if stop is not None:
            return sink.summary(stop)
    return sink.summary(None)


# What a worker returns for a batch: each key with its record or failure, in the batch's order.
_BatchResult = list[tuple[EpisodeKey, EpisodeRecord | Failure]]


def _execute_pool(request: ExecutionRequest, sink: Sink) -> ExecutionSummary:
    keys, engine, setup, workers = request.keys, request.engine, request.setup, request.workers
    pending = iter(_batches(keys, workers))
    in_flight: dict[cf.Future[_BatchResult], list[EpisodeKey]] = {}
    context = mp_context()
    preloaded = context.get_start_method() == "fork" and preload(engine, setup)
    pool = cf.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=worker_init,
        initargs=(engine, setup, preloaded),
    )
    stopped: str | None = None

    def submit_more() -> None:
        nonlocal stopped
        for batch in _take(pending, workers * 2 - len(in_flight)):
            try:
                in_flight[pool.submit(_worker_run, batch)] = batch
            except BrokenProcessPool:  # a worker died; the batch never ran, so it is not an event
                stopped = "a worker process died"
                return

    try:
        submit_more()
        while in_flight:
            done, _ = cf.wait(in_flight, timeout=TICK_S, return_when=cf.FIRST_COMPLETED)
            if not done:
                sink.tick()
                continue
            if _commit_done(done, in_flight, sink):
                stopped = "a worker process died"
            if stopped is None:
                stopped = sink.stop_reason(request.max_events)
            if stopped is None:
                submit_more()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        PRELOADED.clear()
    return sink.summary(stopped)


def _batches(keys: Sequence[EpisodeKey], workers: int) -> list[list[EpisodeKey]]:
    """The keys in small batches (one episode at a time per worker), so that the pool balances."""
    chunk = max(1, min(8, len(keys) // (workers * 8)))
    return [list(keys[i : i + chunk]) for i in range(0, len(keys), chunk)]


def _commit_done(
    done: Iterable[cf.Future[_BatchResult]],
    in_flight: dict[cf.Future[_BatchResult], list[EpisodeKey]],
    sink: Sink,
) -> bool:
    """Commit the finished batches (ordered by their first keys) and drop them from
    ``in_flight``; True when a batch was lost with a dead worker (each of its episodes then an event)."""
    lost = False
    for future in sorted(done, key=lambda f: in_flight[f][0]):
        batch = in_flight.pop(future)
        try:
            results = future.result()
        except BrokenProcessPool as err:  # every episode of the batch was in flight in a dead pool
            lost = True
            for key in batch:
                sink.fail(key, failure("worker_lost", err))
            continue
        for key, outcome in results:
            sink.accept(key, outcome)
    return lost


def _take(iterator: Iterator[_T], n: int) -> list[_T]:
    """Up to ``n`` more items of ``iterator``."""
    out: list[_T] = []
    for _ in range(max(0, n)):
        item = next(iterator, None)
        if item is None:
            break
        out.append(item)
    return out


def _worker_run(keys: list[EpisodeKey]) -> _BatchResult:
    load_failure = WORKER.get("load_failure")
    if load_failure is not None:
        return [(key, load_failure) for key in keys]
    return run_batch(keys, worker_outcome)
