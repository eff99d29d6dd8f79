"""Execute a task's gold plan with the shared binding rule (tests and the generator use it)."""

from __future__ import annotations

from runtime.catalog.model import Catalog
from runtime.simulator.binding import bind_arguments
from runtime.simulator.calls import ExecutedCall
from runtime.simulator.execute import execute
from runtime.simulator.result import ToolResult
from runtime.simulator.world import World
from runtime.surface.model import PlanStep, Task


def run_plan(
    plan: tuple[PlanStep, ...] | list[PlanStep], catalog: Catalog, world: World
) -> tuple[list[ExecutedCall], World]:
    """Each step in order: bind (literal args first, then observations), execute, observe."""
    routes = catalog.by_route()
    calls: list[ExecutedCall] = []
    observations: list[ToolResult] = []
    for step in plan:
        endpoint = routes[step.route_id]
        arguments = bind_arguments(endpoint, step.literal_args, observations)
        result, world = execute(endpoint, arguments, world)
        calls.append(ExecutedCall(route_id=step.route_id, arguments=arguments, result=result))
        observations.append(result)
    return calls, world


def execute_gold_plan(task: Task, catalog: Catalog) -> tuple[list[ExecutedCall], World]:
    """The calls of the gold plan from the task's initial world, and the final world."""
    return run_plan(task.hidden.plan, catalog, task.hidden.world)
