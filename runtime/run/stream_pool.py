"""Worker processes that stream episodes (`sr run --concurrency N` on W > 1 processes): each keeps its
share of the N episodes in flight and gets one more key whenever one of its episodes finishes.

Why not the batch pool of ``episode_pool.py``: a ProcessPoolExecutor call returns when its whole batch
has finished, so a worker's in-flight count drains to zero at the end of every batch before the next
one starts. At N = 256 over two processes the server then saw 0.72-0.76 of N in flight. Here the
parent keeps each worker holding ``window(threads)`` keys: its episode threads running (``threads`` of
them calling the model at once, the others built up to their call; ``in_flight.py``), a few queued
inside the worker, so a finished episode's thread starts the next one without waiting for the parent.

The guarantees are the batch pool's:
- workers only compute; the parent alone commits, one transaction per episode, in completion order
  (outputs are read back in canonical order);
- a worker that dies takes only the keys it held, each an infrastructure event (``worker_lost``) that
  ``--resume`` runs again, and the session stops scheduling;
- a result that arrives for a key no longer held (already counted lost) is dropped, so no episode is
  committed twice;
- after a stop (``max_events``, a failure that stops the session) no new episode starts: each worker
  cancels the keys it had not started, and those get neither a record nor an event.

Each worker has two one-way pipes of its own (keys in, results out) rather than queues shared between
workers: a worker killed in the middle of a write can then corrupt only its own pipe, which the parent
reads to its end (EOF) and drops, while every other worker goes on.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import multiprocessing.connection
import multiprocessing.context
import multiprocessing.process
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection

from runtime.run.engine_port import EngineSetup, EpisodeEngine, EpisodeRecord
from runtime.run.in_flight import TICK_S, episode_threads, serving_pool
from runtime.run.outcomes import ExecutionRequest, ExecutionSummary, Failure, Sink, failure
from runtime.run.pool_worker import (
    PRELOADED,
    ProcessContext,
    mp_context,
    preload,
    worker_init,
    worker_outcome,
)
from runtime.run.scope import EpisodeKey

# What a worker's key pipe carries besides keys. FINISH: run every key you hold, then exit. HALT:
# start no key you hold, finish the running ones, then exit.
_FINISH, _HALT = "finish", "halt"
# Seconds the workers get to exit when the session ends, before they are terminated.
_EXIT_GRACE_S = 10.0

_Outcome = EpisodeRecord | Failure


def window(threads: int) -> int:
    """Keys a worker holds at once: its episode threads (``in_flight.episode_threads``) and a quarter of
    its request slots more queued, so a freed thread starts the next episode without a round trip to
    the parent."""
    return episode_threads(threads) + max(1, threads // 4)


class WorkerLost(RuntimeError):
    """A worker process exited while it held episodes (killed, out of memory, a crash)."""


@dataclass
class _Worker:
    number: int
    process: multiprocessing.process.BaseProcess
    keys: Connection  # the parent's sending end
    results: Connection  # the parent's receiving end
    window: int  # keys it holds at once (``window`` of its request slots)
    held: set[EpisodeKey] = field(default_factory=set)
    told: str | None = None  # _FINISH or _HALT once sent
    gone: bool = False  # exited and accounted for


def execute_streaming(request: ExecutionRequest, sink: Sink) -> ExecutionSummary:
    """Run the request's keys on ``request.workers`` streaming processes; commit each as it finishes."""
    context = mp_context()
    preloaded = context.get_start_method() == "fork" and preload(request.engine, request.setup)
    workers: list[_Worker] = []
    try:
        for number in range(request.workers):
            workers.append(_start(context, number, request, preloaded, workers))
    finally:
        PRELOADED.clear()  # every worker is forked: each holds its copy
    run = _Stream(request, sink, workers)
    try:
        run.until_done()
    finally:
        run.close()
    return sink.summary(run.stopped)


def _start(
    context: ProcessContext,
    number: int,
    request: ExecutionRequest,
    preloaded: bool,
    earlier: list[_Worker],
) -> _Worker:
    keys_in, keys_out = context.Pipe(duplex=False)  # (receiving end, sending end)
    results_in, results_out = context.Pipe(duplex=False)
    # A forked child inherits the parent's ends of the earlier workers' pipes; it closes them.
    inherited = [keys_out, results_in, *(c for w in earlier for c in (w.keys, w.results))]
    slots = request.slots(number)
    args = (keys_in, results_out, inherited, request.engine, request.setup, preloaded, slots)
    process = context.Process(target=_serve, args=args, name=f"episodes-{number}", daemon=True)
    process.start()
    keys_in.close()  # the worker's ends: the parent keeps only its own
    results_out.close()
    return _Worker(number, process, keys_out, results_in, window(slots))


class _Stream:
    """The parent's side: hand out keys, commit results, notice dead workers, tell workers to exit."""

    def __init__(self, request: ExecutionRequest, sink: Sink, workers: list[_Worker]) -> None:
        self.request, self.sink, self.workers = request, sink, workers
        self.pending: Iterator[EpisodeKey] = iter(request.keys)
        self.exhausted = False
        self.stopped: str | None = None

    def until_done(self) -> None:
        for worker in self.workers:
            self._refill(worker)
        while True:
            live = [w for w in self.workers if not w.gone]
            if not live:
                return
            handles: list[Connection | int] = [w.results for w in live] + [w.process.sentinel for w in live]
            by_handle: dict[object, _Worker] = dict(zip(handles, live + live, strict=True))
            ready = multiprocessing.connection.wait(handles, timeout=TICK_S)
            if not ready:
                self.sink.tick()
            for handle in ready:
                worker = by_handle[handle]
                if not worker.gone:
                    self._read(worker, drain=handle is not worker.results)

    def _read(self, worker: _Worker, *, drain: bool) -> None:
        """Take one result from the worker (every one it sent, once it has exited); at the pipe's end,
        account for the worker."""
        try:
            while True:
                key, outcome = worker.results.recv()
                self._take(worker, key, outcome)
                if not drain and not worker.results.poll():
                    return
        except (EOFError, OSError):  # the worker closed its end: it exited, or died mid-write
            worker.process.join()
            self._account(worker)

    def _take(self, worker: _Worker, key: EpisodeKey, outcome: _Outcome) -> None:
        if key not in worker.held:  # never sent to this worker, or already counted lost
            return
        worker.held.discard(key)
        self.sink.accept(key, outcome)
        if self.stopped is None:
            self.stopped = self.sink.stop_reason(self.request.max_events)
        if self.stopped is not None:
            self._tell_all(_HALT)
        else:
            self._refill(worker)

    def _refill(self, worker: _Worker) -> None:
        while not self.exhausted and worker.told is None and len(worker.held) < worker.window:
            key = next(self.pending, None)
            if key is None:
                self.exhausted = True
                break
            worker.held.add(key)
            self._send(worker, key)
        if self.exhausted:
            self._tell_all(_FINISH)

    def _tell_all(self, instruction: str) -> None:
        for worker in self.workers:
            if worker.told is None and not worker.gone:
                worker.told = instruction
                self._send(worker, instruction)

    @staticmethod
    def _send(worker: _Worker, item: EpisodeKey | str) -> None:
        # A worker that is gone cannot take it; its sentinel says so and what it held is accounted for.
        with contextlib.suppress(OSError):
            worker.keys.send(item)

    def _account(self, worker: _Worker) -> None:
        """A worker exited: what it still held was lost (it died) or never started (told to halt)."""
        worker.gone = True
        if worker.process.exitcode == 0 and worker.told == _HALT:
            worker.held.clear()  # halted before these started: no record and no event
            return
        if not worker.held:
            return
        err = WorkerLost(
            f"worker process {worker.number} exited with code {worker.process.exitcode} "
            f"holding {len(worker.held)} episodes"
        )
        for key in sorted(worker.held):
            self.sink.fail(key, failure("worker_lost", err))
        worker.held.clear()
        self.stopped = self.stopped or "a worker process died"
        self._tell_all(_HALT)

    def close(self) -> None:
        """Tell every worker still running to halt and wait for it (terminate one that does not exit)."""
        self._tell_all(_HALT)
        deadline = time.monotonic() + _EXIT_GRACE_S
        for worker in self.workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.exitcode is None:
                worker.process.terminate()
                worker.process.join()
            worker.keys.close()
            worker.results.close()


# -- worker side --------------------------------------------------------------------------------------


def _serve(
    keys: Connection,
    results: Connection,
    inherited: list[Connection],
    engine: EpisodeEngine,
    setup: EngineSetup,
    preloaded: bool,
    threads: int,
) -> None:
    """A worker: run each key it is handed on ``episode_threads(threads)`` threads, at most ``threads``
    of them calling the model at once (``in_flight.py``); send each outcome back."""
    for connection in inherited:
        connection.close()
    worker_init(engine, setup, preloaded, threads)
    pool = serving_pool(threads)  # ExecutionRequest.slots: at least 1
    sending = threading.Lock()  # one writer at a time on the pipe

    def send(key: EpisodeKey, future: cf.Future[_Outcome]) -> None:
        if not future.cancelled():
            outcome = future.result()  # worker_outcome never raises
            with sending:
                results.send((key, outcome))

    while True:
        try:
            item = keys.recv()
        except EOFError:  # the parent is gone
            item = _HALT
        if isinstance(item, str):
            pool.shutdown(wait=True, cancel_futures=item == _HALT)
            break
        pool.submit(worker_outcome, item).add_done_callback(functools.partial(send, item))
    results.close()
