"""The progress display's model-server counters (runtime/agents/traffic.py) with shares from other
processes: a Ray actor returns its counters with each batch, the driver keeps the newest per actor
and the display sums them with its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runtime.agents import traffic
from runtime.agents.traffic import TrafficSnapshot


@pytest.fixture(autouse=True)
def _fresh_counters() -> Iterator[None]:
    traffic.reset()
    yield
    traffic.reset()


def _seen(in_flight: int, answered: int) -> TrafficSnapshot:
    return TrafficSnapshot(in_flight, answered, 1, prompt_tokens=10 * answered, completion_tokens=answered)


def test_the_display_sums_its_own_counters_and_the_newest_share_of_each_actor() -> None:
    traffic.record_answer({"prompt_tokens": 7, "completion_tokens": 2})
    traffic.add_share("actor 0.0", 2, _seen(3, 20))
    traffic.add_share("actor 0.0", 1, _seen(5, 10))  # taken earlier, arrived later: not kept
    traffic.add_share("actor 1.0", 1, _seen(4, 30))
    assert traffic.snapshot() == TrafficSnapshot(7, 51, 2, 507, 52)


def test_a_dead_actor_has_nothing_in_flight_and_a_new_run_forgets_every_share() -> None:
    traffic.add_share("actor 0.0", 1, _seen(3, 20))
    traffic.add_share("actor 1.0", 1, _seen(4, 30))
    traffic.settle_shares("actor 0.0")
    assert traffic.snapshot().in_flight == 4 and traffic.snapshot().answered == 50
    traffic.settle_shares()
    assert traffic.snapshot().in_flight == 0
    traffic.reset()
    assert traffic.snapshot() == TrafficSnapshot(0, 0, 0, 0, 0)
