"""Executor ``ray``: episodes as tasks on Ray actors, results streamed back to the one writing driver.

``sr run --executor ray [--ray-address ADDR]``. Without an address the driver starts a local Ray sized
to this machine (its CPUs; a small object store, no dashboard) and stops it at the end; with one it
joins that cluster (``auto``: the one ``ray start`` runs on this machine). A process that already
called ``ray.init`` (a notebook, a test) is used as it is.

* ``workers`` actors (:class:`ray_worker.EpisodeWorker`), each loading the engine once per catalog.
  Each asks for one CPU, or an equal share of the cluster's CPUs when there are more workers than CPUs.
* ``--concurrency N`` means what it means locally: N model requests in flight in all, shared out over
  the actors exactly (``ExecutionRequest.slots``). An actor with ``s`` slots runs the episodes of its
  batches at once on ``in_flight.episode_threads(s)`` threads over its one engine, so N = 256 against a
  model server is a few actors with many threads, not 256 copies of the engine.
* Batches of episodes in canonical order, at most ``BATCH`` each; the driver takes results as they
  complete (``ray.wait``) and commits each episode in its own transaction. Without ``--concurrency``
  an actor runs one batch at a time with one more queued; with it, as many batches as fill its episode
  threads and one more (one remote call per batch: at N = 256 one call per episode cost the driver more
  CPU than the episodes' commits). Completion order never matters: outputs are read back in canonical
  order, so scored outputs equal the local executor's.
* A worker that dies (SIGKILL, a lost node) fails its in-flight batches with ``RayActorError``: each of
  those episodes gets a ``worker_lost`` infrastructure event and is queued again on a fresh actor; its
  later commit resolves the event. An episode lost ``MAX_ATTEMPTS`` times is left to ``--resume``. The
  store's primary key and the driver's single writer make a double count impossible.
* The model-call cache: one owner actor on the driver's node holds the SQLite file (``ray_cache``).
* The driver killed mid-run: its actors die with it (Ray ends an owner's actors), committed episodes
  stay, and ``sr run --resume`` continues on either executor.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging
import math
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from runtime.agents import traffic
from runtime.core.errors import SchemaRouterError
from runtime.run.engine_port import EngineSetup, EpisodeEngine
from runtime.run.executors.ray_cache import CacheOwner
from runtime.run.executors.ray_worker import BatchResult, EpisodeWorker
from runtime.run.executors.registry import ExecutorOptions, register_executor
from runtime.run.in_flight import episode_threads
from runtime.run.outcomes import ExecutionRequest, ExecutionSummary, Sink, failure
from runtime.run.scope import EpisodeKey

RAY_MISSING = "--executor ray needs Ray, which is not installed: pip install -e '.[ray]'"
LOCAL_OBJECT_STORE_BYTES = 200 * 1024 * 1024  # results are small; Ray's default is 30% of the RAM
MAX_ATTEMPTS = 3  # an episode whose worker died this often is left to --resume
QUEUED_PER_ACTOR = 1  # batches waiting at an actor beyond those it runs, so it never waits for the driver
BATCH = 8  # episodes per batch at most


def import_ray() -> ModuleType:
    """Ray, or one line saying how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise SchemaRouterError(RAY_MISSING) from None


@register_executor("ray")
class RayExecutor:
    def __init__(self, options: ExecutorOptions) -> None:
        self.address = options.ray_address
        self.ray = import_ray()  # before the session starts: a missing extra is one line, not an event

    def execute(self, request: ExecutionRequest) -> ExecutionSummary:
        sink = request.sink()
        if not request.keys:
            return sink.summary(None)
        with connected(self.ray, self.address):
            slots = [request.slots(i) for i in range(request.workers)]
            setup = portable(request.setup)
            episodes, events = len(request.keys), request.max_events
            driver = _Driver(self.ray, sink, request.engine, setup, slots, episodes, events)
            return driver.run(request.keys)


@contextmanager
def connected(ray: ModuleType, address: str | None) -> Iterator[None]:
    """Join the cluster at ``address``, or start a local one; shut down only what this call started."""
    if ray.is_initialized():
        yield
        return
    quiet: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
    try:
        if address is None:
            ray.init(
                address="local",
                include_dashboard=False,
                object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                **quiet,
            )
        else:
            ray.init(address=address, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as err:
        where = f"--ray-address {address}" if address else "a local Ray"
        hint = (
            "; a cluster with token authentication needs RAY_AUTH_MODE=token and its token on the driver"
            if address
            else ""
        )
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise SchemaRouterError(f"{where}: cannot start or connect ({first}){hint}") from None
    try:
        yield
    finally:
        ray.shutdown()


def portable(setup: EngineSetup) -> EngineSetup:
    """The setup with absolute paths: an actor's working directory is not the driver's."""
    options = dict(setup.agent_options)
    for name in ("cache_path", "tokenizer_json"):
        if options.get(name):
            options[name] = str(Path(str(options[name])).resolve())
    return dataclasses.replace(
        setup,
        project_root=setup.project_root.resolve(),
        surface_file=str(Path(setup.surface_file).resolve()) if setup.surface_file else None,
        agent_options=tuple(sorted(options.items())),
    )


def batch_size(keys: int, slots: Sequence[int]) -> int:
    """Episodes per batch: up to ``BATCH``; without --concurrency (one slot each) small enough that each
    actor gets about eight, as it always did; with it, a batch's episodes run at once, so ``BATCH``
    unless there are too few keys to give every episode thread one."""
    if max(slots) <= 1:
        return max(1, min(BATCH, keys // (len(slots) * 8)))
    return max(1, min(BATCH, keys // sum(episode_threads(n) for n in slots)))


def owners_node(ray: ModuleType) -> str:
    """The node the cache owners run on (the driver's): workers there open the cache file themselves."""
    return str(ray.get_runtime_context().get_node_id())


def actor_cpus(cluster_cpus: float, workers: int) -> float:
    """One CPU per actor, or an equal share when there are more actors than CPUs (Ray's 1e-4 grid)."""
    if workers <= cluster_cpus:
        return 1.0
    return math.floor(cluster_cpus / workers * 10_000) / 10_000


class _Driver:
    """Schedules batches on the actors and commits what comes back; the only writer."""

    def __init__(
        self,
        ray: ModuleType,
        sink: Sink,
        engine: EpisodeEngine,
        setup: EngineSetup,
        slots: Sequence[int],
        episodes: int,
        max_events: int,
    ) -> None:
        """``slots``: per actor, the model requests it keeps in flight at most (one: one at a time);
        ``episodes``: how many the run has (the batch size depends on it)."""
        workers = len(slots)
        self.ray, self.sink, self.workers, self.max_events = ray, sink, workers, max_events
        self.slots = list(slots)
        self.owners = self._cache_owners(setup)
        self.payload = ray.put((engine, setup, self.owners, owners_node(ray) if self.owners else None))
        self.cpus = actor_cpus(float(ray.cluster_resources().get("CPU", 0.0)), workers)
        self.worker_class = ray.remote(EpisodeWorker)
        self.size = batch_size(episodes, self.slots)
        # Per actor: batches in flight, enough to fill its episode threads, and one more queued.
        self.capacity = [-(-episode_threads(n) // self.size) + QUEUED_PER_ACTOR for n in self.slots]
        self.actors = [self._start(slot) for slot in range(workers)]
        self.generation = [0] * workers  # bumped when a slot's actor is replaced
        self.load = [0] * workers  # batches in flight on the slot's current actor
        self.attempts: dict[EpisodeKey, int] = {}

    def _start(self, slot: int) -> Any:
        slots = self.slots[slot]
        # No restarts by Ray: the driver replaces a dead actor itself and records what it lost.
        options = {"num_cpus": self.cpus, "max_restarts": 0, "max_task_retries": 0}
        # With slots, a threaded actor: its batches wait on its episode pool together.
        batches = self.capacity[slot] if slots > 1 else 1
        actor = self.worker_class.options(max_concurrency=batches, **options)
        return actor.remote(self.payload, slots)

    def _cache_owners(self, setup: EngineSetup) -> dict[str, Any]:
        options = dict(setup.agent_options)
        path = options.get("cache_path")
        if not path or options.get("no_cache"):
            return {}
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        node = self.ray.get_runtime_context().get_node_id()
        here = NodeAffinitySchedulingStrategy(node_id=node, soft=False)
        owner_class = self.ray.remote(CacheOwner).options(num_cpus=0, scheduling_strategy=here)
        return {str(path): owner_class.remote(str(path))}

    def run(self, keys: Sequence[EpisodeKey]) -> ExecutionSummary:
        size = self.size
        queue = deque(list(keys[i : i + size]) for i in range(0, len(keys), size))
        in_flight: dict[Any, tuple[int, int, list[EpisodeKey]]] = {}
        stopped: str | None = None
        try:
            while True:
                if stopped is None:
                    for slot in range(self.workers):
                        while queue and self.load[slot] < self.capacity[slot]:
                            batch = queue.popleft()
                            ref = self.actors[slot].run.remote(batch)
                            in_flight[ref] = (slot, self.generation[slot], batch)
                            self.load[slot] += 1
                if not in_flight:
                    break
                ready, _ = self.ray.wait(list(in_flight), num_returns=1)
                for ref in ready:
                    slot, generation, batch = in_flight.pop(ref)
                    if generation == self.generation[slot]:
                        self.load[slot] -= 1
                    self._collect(ref, slot, generation, batch, queue)
                if stopped is None:
                    stopped = self.sink.stop_reason(self.max_events)
        finally:
            self._stop()
        return self.sink.summary(stopped)

    def _collect(
        self, ref: Any, slot: int, generation: int, batch: list[EpisodeKey], queue: deque[list[EpisodeKey]]
    ) -> None:
        exceptions = self.ray.exceptions
        try:
            results, seq, counted = cast(BatchResult, self.ray.get(ref))
        except exceptions.RayActorError as err:  # the worker died with this batch in flight
            self._replace(slot, generation)
            retry = []
            for key in batch:
                self.attempts[key] = self.attempts.get(key, 0) + 1
                again = self.attempts[key] < MAX_ATTEMPTS
                self.sink.fail(key, failure("worker_lost", err), retrying=again)
                if again:
                    retry.append(key)
            if retry:
                queue.appendleft(retry)
            return
        except exceptions.RayError as err:  # anything else Ray raises for the batch: an event each
            for key in batch:
                self.sink.fail(key, failure("worker_error", err))
            return
        traffic.add_share(_source(slot, generation), seq, counted)  # for the progress display
        for key, outcome in results:
            self.sink.accept(key, outcome)

    def _replace(self, slot: int, generation: int) -> None:
        """A fresh actor in the slot, once per death (its other in-flight batches fail the same way)."""
        if generation != self.generation[slot]:
            return
        self.ray.kill(self.actors[slot], no_restart=True)
        traffic.settle_shares(_source(slot, generation))  # nothing of the dead actor is in flight
        self.actors[slot] = self._start(slot)
        self.generation[slot] += 1
        self.load[slot] = 0

    def _stop(self) -> None:
        traffic.settle_shares()
        for actor in self.actors:
            self.ray.kill(actor, no_restart=True)
        for owner in self.owners.values():
            try:
                self.ray.get(owner.close.remote())
            except self.ray.exceptions.RayError:
                pass  # the owner died: SQLite kept every committed write, and the run's outcome stands
            finally:
                self.ray.kill(owner, no_restart=True)


def _source(slot: int, generation: int) -> str:
    """An actor's name among the traffic shares: its slot and which actor of the slot it is."""
    return f"actor {slot}.{generation}"
