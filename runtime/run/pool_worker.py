"""The worker side of the local executor's processes: what a forked (or spawned) worker holds, how it
loads its engine, and how it computes one episode.

Both pools use it: ``episode_pool.py`` (batches over a ProcessPoolExecutor, one episode at a time per
worker) and ``stream_pool.py`` (each worker keeps ``threads`` episodes in flight and is refilled one
episode at a time). A worker only computes: it never opens the store.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import os
import signal
import sys
from typing import TypedDict

from runtime.run import long_lived
from runtime.run.engine_port import EngineSetup, EpisodeEngine, EpisodeRecord, LoadedEngine
from runtime.run.outcomes import Failure, failure, run_one
from runtime.run.scope import EpisodeKey


class WorkerState(TypedDict, total=False):
    """What a worker process's initializer left for its episodes: the engine, its threads, and what it
    loaded (or the failure to load, reported per episode)."""

    engine: EpisodeEngine
    threads: int
    loaded: LoadedEngine
    load_failure: Failure


WORKER: WorkerState = {}
# The engine the parent loaded before forking its workers (copy-on-write in each worker).
PRELOADED: dict[str, LoadedEngine] = {}


# The contexts the pools use (both have ``Process`` and ``Pipe``).
ProcessContext = multiprocessing.context.ForkContext | multiprocessing.context.SpawnContext


def mp_context() -> ProcessContext:
    # fork starts workers without re-importing everything; the parent starts no thread before the pool.
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def preload(engine: EpisodeEngine, setup: EngineSetup) -> bool:
    """Load the engine in the parent for forked workers to inherit; False (workers load) if it fails."""
    PRELOADED.clear()
    try:
        PRELOADED["loaded"] = engine.load(setup)
    except Exception:
        return False
    long_lived.settle()  # before the fork: the workers inherit it set aside
    return True


def worker_init(engine: EpisodeEngine, setup: EngineSetup, preloaded: bool = False, threads: int = 1) -> None:
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and shuts the pool down
    WORKER["engine"] = engine
    WORKER["threads"] = threads
    if preloaded and "loaded" in PRELOADED:
        WORKER["loaded"] = PRELOADED["loaded"]
        return
    try:
        WORKER["loaded"] = engine.load(setup)
    except Exception as err:  # reported per episode, so each gets its infrastructure event
        WORKER["load_failure"] = failure("engine_load", err)
        return
    long_lived.settle()  # the worker's process ends with its session


def worker_outcome(key: EpisodeKey) -> EpisodeRecord | Failure:
    """One episode in this worker: its record, or the failure (the load's, or the episode's)."""
    load_failure = WORKER.get("load_failure")
    if load_failure is not None:
        return load_failure
    return run_one(WORKER["engine"], WORKER["loaded"], key)


def die_with_parent() -> None:
    """Linux: have the kernel kill this process if its parent dies (e.g. kill -9), so none is orphaned.

    Used by pool workers and, as a ``preexec_fn``, by child servers such as the llama.cpp server."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
        if os.getppid() == 1:  # the parent died before prctl took effect
            os._exit(1)
    except OSError:
        pass
