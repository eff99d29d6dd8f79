"""The body of a Ray episode worker: an actor that loads the engine once per catalog and runs batches.

The executor wraps :class:`EpisodeWorker` with ``ray.remote``; this module never imports Ray itself.
A worker only computes: it returns each episode's record or failure and never touches the run store.
It loads a catalog's engine resources the first time it is handed an episode of that catalog and keeps
them for the rest of the run, so a worker serving one catalog never builds the others' indices. A load
failure is remembered and returned for each episode of that catalog, as the local workers do.

With ``slots`` model requests to keep in flight (its share of ``--concurrency N``), the actor runs
the episodes of every batch it holds at once on its own pool of ``in_flight.episode_threads(slots)``
episode threads over the one loaded engine, and holds at most ``slots`` requests in flight
(``runtime/agents/request_slots.py``), exactly as a local worker process does. It is a threaded Ray
actor so that several batches wait on the pool together; a batch returns when its last episode does.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import importlib
import os
import threading
from collections.abc import Callable
from typing import Any

from runtime.agents import traffic
from runtime.agents.call_cache import install_cache_opener
from runtime.run.engine_port import EngineSetup, EpisodeEngine, EpisodeRecord, LoadedEngine
from runtime.run.executors.ray_cache import remote_opener
from runtime.run.in_flight import serving_pool
from runtime.run.outcomes import Failure, failure, run_batch, run_one
from runtime.run.scope import EpisodeKey

Outcome = EpisodeRecord | Failure
WorkerResult = list[tuple[EpisodeKey, Outcome]]
# A batch's results, and this actor's model-server traffic counters when it returned (numbered, so
# the driver keeps the newest: ``traffic.add_share``).
BatchResult = tuple[WorkerResult, int, traffic.TrafficSnapshot]


class EpisodeWorker:
    """One Ray actor: ``(engine, setup, cache owners by path, their node)`` in, batches of episodes
    through."""

    def __init__(
        self, payload: tuple[EpisodeEngine, EngineSetup, dict[str, Any], str | None], slots: int = 1
    ) -> None:
        self._engine, self._setup, owners, owners_node = payload
        self._loaded: dict[int, LoadedEngine | Failure] = {}
        self._loading = threading.Lock()  # batches on several threads: each catalog is loaded once
        self._pool: cf.ThreadPoolExecutor | None = None
        self._counted = 0  # traffic snapshots returned so far
        self._counting = threading.Lock()
        if slots > 1:  # this actor process serves one run: its share of the run's requests in flight
            self._pool = serving_pool(slots)
        if owners:  # the run's model-call cache: the file on its owner's node, the owner actor elsewhere
            ray = importlib.import_module("ray")
            here = ray.get_runtime_context().get_node_id() == owners_node
            install_cache_opener(remote_opener(ray, owners, owners_node=here))

    def run(self, keys: list[EpisodeKey]) -> BatchResult:
        if self._pool is None:
            results = run_batch(keys, self._outcome)
        else:
            results = _run_on(self._pool, keys, self._outcome)
        with self._counting:
            self._counted += 1
            return results, self._counted, traffic.snapshot()

    def _outcome(self, key: EpisodeKey) -> EpisodeRecord | Failure:
        loaded = self._load(key.catalog)
        return loaded if isinstance(loaded, Failure) else run_one(self._engine, loaded, key)

    def pid(self) -> int:
        return os.getpid()

    def _load(self, catalog: int) -> LoadedEngine | Failure:
        with self._loading:
            if catalog not in self._loaded:
                setup = dataclasses.replace(self._setup, catalog_sizes=(catalog,))
                try:
                    self._loaded[catalog] = self._engine.load(setup)
                except Exception as err:  # reported per episode, so each gets its infrastructure event
                    self._loaded[catalog] = failure("engine_load", err)
            return self._loaded[catalog]


def _run_on(
    pool: cf.ThreadPoolExecutor, keys: list[EpisodeKey], outcome_of: Callable[[EpisodeKey], Outcome]
) -> WorkerResult:
    """A batch's episodes at once on the actor's pool, returned in the batch's order. After a failure
    that stops the session, the episodes not started yet are not run (as in ``run_batch``: no record and
    no event for those, so the next ``--resume`` runs them)."""
    futures = [pool.submit(outcome_of, key) for key in keys]
    out: WorkerResult = []
    for key, future in zip(keys, futures, strict=True):
        try:
            outcome = future.result()
        except cf.CancelledError:
            continue
        out.append((key, outcome))
        if isinstance(outcome, Failure) and outcome.stops_session:
            for later in futures:
                later.cancel()
    return out
