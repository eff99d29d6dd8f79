"""The gold plan as a state machine over the observed history of executed calls.

A plan is a list of steps; each names a route and the outcome it should have (``ok`` or a typed error
such as AUTH_EXPIRED that the recoverable-failure stratum meets first). Reading the history in order,
a call advances the plan when it matches the current step (same route, same outcome), or a later step
when every step skipped over expects an error: a failure the agent avoided (by refreshing first, say)
need not be met. Calls that match nothing (distractors, failed retries) leave the state unchanged.
The next required route is the route of the first unmatched step; None when all are matched.
"""

from __future__ import annotations

from collections.abc import Sequence

from runtime.simulator.calls import ExecutedCall
from runtime.surface.model import PlanStep, Task


def plan_position(plan: Sequence[PlanStep], executed: Sequence[ExecutedCall]) -> int:
    """How many steps of ``plan`` the history has matched."""
    position = 0
    for call in executed:
        j = position
        while j < len(plan):
            step = plan[j]
            if call.route_id == step.route_id and call.outcome == step.expect:
                position = j + 1
                break
            if step.expect == "ok":
                break
            j += 1
    return position


def next_required_route(task: Task, executed: Sequence[ExecutedCall]) -> str | None:
    """The gold plan's next route given the executed calls so far; None when the plan is done."""
    plan = task.hidden.plan
    position = plan_position(plan, executed)
    return plan[position].route_id if position < len(plan) else None


def required_routes(task: Task) -> frozenset[str]:
    """Every route the gold plan may need (what ORACLE exposes)."""
    return frozenset(step.route_id for step in task.hidden.plan)
