"""Where a run's occupancy went: the most it could be (``occupancy_bound``), and what its start, its
tail and the time between lost of it (``occupancy_parts``; `sr bench serve`).

Occupancy is the mean of requests in flight over the server's busy window divided by N, so what it
lacks of 1 is the window's shortfall, the integral of ``N - in flight``, over ``N x window``. The
bench splits that shortfall in three, from the server's own timeline (``bench_server``'s
``/stats/timeline``):

- start: from the first arrival until N requests were first in flight at once (the client building
  its first episodes);
- tail: from the last arrival to the last answer (no request is left to send; a fixed latency alone
  makes it cost ``1 - occupancy_bound``);
- between: the rest, where every shortfall is the client not sending the next request at once.

The three add up to ``1 - occupancy``. A run that never reaches N has no "between": its start lasts
until its last arrival.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise


def occupancy_bound(episodes: int, n: int) -> float:
    """The highest occupancy a client can reach with ``episodes`` requests of one fixed latency and at
    most ``n`` in flight: some slot serves ``ceil(episodes / n)`` requests one after another, so the
    server's busy window lasts at least that many latencies (2,700 at N = 256: 11, so 0.959)."""
    if episodes <= 0 or n <= 0:
        return 0.0
    return episodes / (math.ceil(episodes / n) * n)


@dataclass(frozen=True)
class OccupancyParts:
    occupancy: float
    start_loss: float
    start_s: float
    between_loss: float
    tail_loss: float
    tail_s: float

    def text(self) -> str:
        return (
            f"lost: start {self.start_loss:.3f} ({self.start_s:.2f} s to reach N), between "
            f"{self.between_loss:.3f}, tail {self.tail_loss:.3f} ({self.tail_s:.2f} s after the last request)"
        )


def occupancy_parts(events: Sequence[Sequence[float]], n: int) -> OccupancyParts | None:
    """``events``: (seconds since the first arrival, requests in flight after the change), in order, as
    the server recorded them; None when there is no window to split (or N is not positive)."""
    points = [(float(t), int(k)) for t, k in events]
    if n <= 0 or len(points) < 2 or points[-1][0] <= 0:
        return None
    window = points[-1][0]
    previous = [0, *(k for _, k in points[:-1])]
    last_arrival = max(t for (t, k), before in zip(points, previous, strict=True) if k > before)
    full_at = next((t for t, k in points if k >= n), last_arrival)
    start_end = min(full_at, last_arrival)
    shortfall = {"start": 0.0, "between": 0.0, "tail": 0.0}
    for (t0, k), (t1, _) in pairwise(points):
        for name, lo, hi in (("start", 0.0, start_end), ("between", start_end, last_arrival)):
            shortfall[name] += max(0.0, min(t1, hi) - max(t0, lo)) * (n - k)
        shortfall["tail"] += max(0.0, t1 - max(t0, last_arrival)) * (n - k)
    scale = n * window
    losses = {name: value / scale for name, value in shortfall.items()}
    return OccupancyParts(
        occupancy=1.0 - sum(losses.values()),
        start_loss=losses["start"],
        start_s=start_end,
        between_loss=losses["between"],
        tail_loss=losses["tail"],
        tail_s=window - last_arrival,
    )
