"""The frozen task surface: tasks, their gold plans as state machines, and the deterministic task check."""

from runtime.simulator.calls import ExecutedCall
from runtime.surface.check import TaskCheck, check_task, milestones_reached
from runtime.surface.gold import execute_gold_plan
from runtime.surface.io import load_surface, load_surface_file
from runtime.surface.model import (
    ExpectedValue,
    Grant,
    Hazards,
    HiddenTask,
    Milestone,
    PlanStep,
    Task,
    VisibleTask,
)
from runtime.surface.plan import next_required_route, required_routes

__all__ = [
    "ExecutedCall",
    "ExpectedValue",
    "Grant",
    "Hazards",
    "HiddenTask",
    "Milestone",
    "PlanStep",
    "Task",
    "TaskCheck",
    "VisibleTask",
    "check_task",
    "execute_gold_plan",
    "load_surface",
    "load_surface_file",
    "milestones_reached",
    "next_required_route",
    "required_routes",
]
