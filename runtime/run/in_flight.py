"""Episodes in flight on the threads of one process, over one loaded engine (`sr run --concurrency N`).

A model episode spends nearly all of its time waiting for the server, so a process keeps several in
flight at once: up to ``threads`` episodes run on a thread pool, each with its own agent over the
process's one HTTP client and call cache (``runtime/agents/openai_agent.ModelLink``). Threads rather
than asyncio: the engine, the gate and the simulator are synchronous code that already returns one
episode's record from one call, and an episode is independent of every other, so a thread per episode
in flight runs them unchanged, where asyncio would need an async copy of the engine's loop and of the
agent. The CPU part of an episode holds the GIL; the waiting does not.

``threads`` is the process's share of the model requests in flight. It starts half as many episodes
again (``episode_threads``) and lets only ``threads`` of them call the model at once
(``runtime/agents/request_slots.py``): an answer's freed slot goes to an episode already built up to its
call. Measured at N = 256 against the loopback server (`sr bench serve`'s, latency 1 s, 2,700 one-turn
episodes, two processes; README): occupancy 0.891 mean of five runs with no extra episode, 0.906 of
three with half as many again, 0.905 of three with as many again.

Outcomes are handed to ``on_outcome`` in the calling thread as they finish, so the caller alone writes
(one transaction per episode, in completion order; outputs are read back in canonical order). After a
failure that stops the session, no further episode starts; those already in flight finish.
"""

from __future__ import annotations

import concurrent.futures as cf
import sys
from collections.abc import Callable, Sequence

from runtime.agents import request_slots
from runtime.run.engine_port import EpisodeRecord
from runtime.run.outcomes import Failure
from runtime.run.scope import EpisodeKey

# How often the caller hears from a wait that finished nothing (progress lines at a steady interval).
TICK_S = 0.5
# While episodes are in flight: a thread whose response arrived waits for the GIL at most this long
# behind one computing (CPython's default, 5 ms, is paid on every wake-up of every episode: the convoy
# of I/O threads behind CPU-bound ones).
SWITCH_INTERVAL_S = 0.0005

# Episodes started beyond the request slots, as a share of them (see above).
AHEAD = 0.5

Outcome = EpisodeRecord | Failure


def episode_threads(requests: int) -> int:
    """Episode threads for ``requests`` slots: as many, and ``AHEAD`` of them again (one thread: one)."""
    return requests if requests <= 1 else requests + max(1, int(requests * AHEAD))


def serving_pool(requests: int) -> cf.ThreadPoolExecutor:
    """For a worker process that serves one run (a local stream worker, a Ray actor): at most
    ``requests`` model requests in flight for the rest of its life, the short switch interval, and the
    pool of ``episode_threads(requests)`` threads its episodes run on."""
    request_slots.limit(requests)
    sys.setswitchinterval(SWITCH_INTERVAL_S)  # no GIL convoy behind a computing thread (above)
    return cf.ThreadPoolExecutor(max_workers=episode_threads(requests), thread_name_prefix="episode")


def run_in_flight(
    keys: Sequence[EpisodeKey],
    outcome_of: Callable[[EpisodeKey], Outcome],
    *,
    threads: int,
    on_outcome: Callable[[EpisodeKey, Outcome], None],
    should_stop: Callable[[], bool] = lambda: False,
    on_tick: Callable[[], None] | None = None,
) -> bool:
    """Run ``keys`` with up to ``threads`` model requests in flight (``episode_threads(threads)``
    episodes); False when it stopped before starting them all."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    try:
        with request_slots.limited_to(threads):
            return _run(keys, outcome_of, episode_threads(threads), on_outcome, should_stop, on_tick)
    finally:
        sys.setswitchinterval(previous)


def _run(
    keys: Sequence[EpisodeKey],
    outcome_of: Callable[[EpisodeKey], Outcome],
    threads: int,
    on_outcome: Callable[[EpisodeKey, Outcome], None],
    should_stop: Callable[[], bool],
    on_tick: Callable[[], None] | None,
) -> bool:
    pending = iter(keys)
    running: dict[cf.Future[Outcome], EpisodeKey] = {}
    started = 0
    with cf.ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="episode") as pool:
        stopped = False
        while True:
            while not stopped and len(running) < threads:
                key = next(pending, None)
                if key is None:
                    break
                running[pool.submit(outcome_of, key)] = key
                started += 1
            if not running:
                break
            done, _ = cf.wait(running, timeout=TICK_S, return_when=cf.FIRST_COMPLETED)
            if not done and on_tick is not None:
                on_tick()
            for future in sorted(done, key=lambda f: running[f]):
                key = running.pop(future)
                outcome = future.result()  # outcome_of never raises: failures are values
                on_outcome(key, outcome)
                if isinstance(outcome, Failure) and outcome.stops_session:
                    stopped = True
            stopped = stopped or should_stop()
    return started == len(keys)
