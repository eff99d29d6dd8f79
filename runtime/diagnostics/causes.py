"""The failure taxonomy: exactly one primary cause per failed episode, under a fixed precedence.

The *needed route* is the gold plan's next required route after every call the episode executed (None
when the plan is complete). The first rule that holds is the cause, so every failed episode has one
and the counts of a condition x catalog sum to its failures:

1. ``destructive_denied``: the gate denied a destructive call (``UNAUTHORIZED_DESTRUCTIVE``);
2. ``arguments_blocked``: the needed route was called and the gate blocked its arguments
   (``INVALID_ARGUMENTS``);
3. ``never_exposed``: the needed route was in no turn's exposure;
4. ``evicted_by_refresh``: it was exposed, never called, and a later turn's exposure no longer held it
   (a refresh replaced it before use);
5. ``exposed_not_called``: it was exposed until the last turn and never called;
6. ``budget_exhausted``: the episode stopped on ``max_turns`` or ``no_progress``;
7. ``wrong_or_missing_answer``: anything else (the plan may be complete; the answer was wrong, missing,
   or the agent gave up with the needed route already called).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from runtime.catalog.model import Endpoint
from runtime.engine.trace import EpisodeTrace
from runtime.simulator.calls import ExecutedCall
from runtime.surface.model import Task
from runtime.surface.plan import next_required_route

CAUSES: tuple[tuple[str, str], ...] = (
    ("destructive_denied", "destructive call denied"),
    ("arguments_blocked", "needed route called with arguments the gate blocked"),
    ("never_exposed", "needed route never exposed"),
    ("evicted_by_refresh", "exposed, then evicted by a refresh before use"),
    ("exposed_not_called", "exposed but not called"),
    ("budget_exhausted", "turn or no-progress budget exhausted"),
    ("wrong_or_missing_answer", "wrong or missing final answer"),
)
CAUSE_IDS = tuple(code for code, _ in CAUSES)
BUDGET_ENDINGS = ("max_turns", "no_progress")


def primary_cause(
    trace: EpisodeTrace,
    task: Task,
    endpoints: Mapping[str, Endpoint],
    executed: Sequence[tuple[int, ExecutedCall]],
) -> str:
    """The one primary cause of a failed episode (``CAUSES`` order is the precedence)."""
    audits = [t.audit for t in trace.turns if t.audit is not None]
    if any(a.get("reason") == "UNAUTHORIZED_DESTRUCTIVE" for a in audits):
        return "destructive_denied"
    needed = next_required_route(task, [call for _, call in executed])
    if needed is not None:
        if any(a.get("route_id") == needed and a.get("reason") == "INVALID_ARGUMENTS" for a in audits):
            return "arguments_blocked"
        shown = [needed in trace.exposed_route_ids(t) for t in trace.turns]
        if not any(shown):
            return "never_exposed"
        called = any(
            t.result is not None and t.result.route_id == needed and t.result.status != "blocked"
            for t in trace.turns
        )
        if not called:
            return "evicted_by_refresh" if not shown[-1] else "exposed_not_called"
    if trace.ended_by in BUDGET_ENDINGS:
        return "budget_exhausted"
    return "wrong_or_missing_answer"
