"""Request slots (runtime/agents/request_slots.py): `--concurrency N` keeps at most N model requests in
flight per run, while half as many episodes again are built up to their call (runtime/run/in_flight.py).

What must hold: never more requests in flight than slots, and the extra episodes really run ahead (else
the slots are the old episode limit under another name). The integration check, a loopback server's own
peak against N on one and on two processes, is in tests/test_run_concurrency.py.
"""

from __future__ import annotations

import threading
import time

import pytest

from runtime.agents import request_slots
from runtime.run.in_flight import episode_threads, run_in_flight
from runtime.run.outcomes import Failure
from runtime.run.scope import EpisodeKey


class _Peaks:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.episodes = self.requests = 0
        self.peak_episodes = self.peak_requests = 0

    def change(self, episodes: int = 0, requests: int = 0) -> None:
        with self.lock:
            self.episodes += episodes
            self.requests += requests
            self.peak_episodes = max(self.peak_episodes, self.episodes)
            self.peak_requests = max(self.peak_requests, self.requests)


def _keys(n: int) -> list[EpisodeKey]:
    return [EpisodeKey(f"t{i:03d}", "C1", 100) for i in range(n)]


def test_episodes_run_ahead_of_their_requests_and_requests_never_exceed_the_slots() -> None:
    peaks = _Peaks()

    def outcome_of(key: EpisodeKey) -> Failure:
        peaks.change(episodes=1)
        with request_slots.slot():  # what http_client does around each exchange
            peaks.change(requests=1)
            time.sleep(0.2)  # the server's latency: long enough for every thread to have started
            peaks.change(requests=-1)
        peaks.change(episodes=-1)
        return Failure("test", "none", "", "", None)

    done: list[EpisodeKey] = []
    finished = run_in_flight(_keys(12), outcome_of, threads=4, on_outcome=lambda k, _o: done.append(k))
    assert finished and sorted(done) == _keys(12)
    assert peaks.peak_requests == 4  # the slots were all used, and never more
    assert peaks.peak_episodes == episode_threads(4) == 6  # two episodes waited, built, for a slot


def test_outside_a_run_a_request_never_waits() -> None:
    entered = threading.Event()

    def hold() -> None:
        with request_slots.slot():
            entered.wait(5)

    holders = [threading.Thread(target=hold) for _ in range(64)]
    for t in holders:
        t.start()
    with request_slots.slot():
        entered.set()
    for t in holders:
        t.join(5)
    assert not any(t.is_alive() for t in holders)


def test_the_limit_is_restored_after_a_run_and_must_be_positive() -> None:
    with request_slots.limited_to(2):
        with request_slots.limited_to(1):
            assert request_slots._SLOTS[0]._value == 1  # type: ignore[attr-defined]
        assert request_slots._SLOTS[0]._value == 2  # type: ignore[attr-defined]
    assert request_slots._SLOTS == []
    with pytest.raises(ValueError, match="at least 1"), request_slots.limited_to(0):
        pass
    assert [episode_threads(n) for n in (1, 2, 3, 4, 128)] == [1, 3, 4, 6, 192]
