"""The committed surface: every gold plan passes, and breaking any part of it fails the task."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from runtime.catalog.io import load_catalog
from runtime.catalog.model import Catalog
from runtime.simulator import ExecutedCall, World, bind_arguments, execute
from runtime.surface import (
    Task,
    check_task,
    execute_gold_plan,
    load_surface,
    milestones_reached,
    next_required_route,
    required_routes,
)

CATALOGS = Path(__file__).resolve().parents[1] / "catalogs" / "0.14"


@cache
def tasks() -> tuple[Task, ...]:
    return tuple(load_surface(CATALOGS))


@cache
def catalog(size: int) -> Catalog:
    return load_catalog(CATALOGS, size)


def run(task: Task, *, skip: int | None = None, override: tuple[int, str, Any] | None = None):
    """Execute the gold plan, optionally skipping a step or overriding one bound argument."""
    routes = catalog(100).by_route()
    world: World = task.hidden.world
    calls: list[ExecutedCall] = []
    for index, step in enumerate(task.hidden.plan):
        if index == skip:
            continue
        endpoint = routes[step.route_id]
        args = bind_arguments(endpoint, step.literal_args, [c.result for c in calls])
        if override and override[0] == index:
            args[override[1]] = override[2]
        result, world = execute(endpoint, args, world)
        calls.append(ExecutedCall(route_id=step.route_id, arguments=args, result=result))
    return calls, world


def test_the_surface_has_180_tasks_in_30_cells_of_6():
    cells: dict[tuple[str, str], int] = {}
    for t in tasks():
        cells[(t.stratum, t.language)] = cells.get((t.stratum, t.language), 0) + 1
    assert len(tasks()) == 180
    assert len(cells) == 30
    assert set(cells.values()) == {6}
    assert [t.task_id for t in tasks()] == sorted(t.task_id for t in tasks())


@pytest.mark.parametrize("task", tasks(), ids=lambda t: t.task_id)
def test_gold_plan_passes_and_the_state_machine_ends(task: Task):
    calls, world = execute_gold_plan(task, catalog(100))
    verdict = check_task(task, calls, world, gave_final_answer=True)
    assert verdict.passed, verdict.reasons
    assert verdict.milestones_reached == verdict.milestones_total == len(task.hidden.milestones)
    assert next_required_route(task, calls) is None
    assert next_required_route(task, []) == task.hidden.plan[0].route_id
    for k in range(len(calls)):
        assert next_required_route(task, calls[:k]) == task.hidden.plan[k].route_id
    assert milestones_reached(task, calls) == verdict.milestones_total
    assert not check_task(task, calls, world, gave_final_answer=False).passed


def _is_identifier(calls: list[ExecutedCall], value: Any) -> bool:
    return any(f.stable_identifier and f.value == value for c in calls for f in c.result.fields)


def _mutations(task: Task) -> list[tuple[str, dict]]:
    """Every way to break the plan: skip an ok step, alter a carried identifier, carry a wrong unit."""
    out: list[tuple[str, dict]] = []
    plan = task.hidden.plan
    for index, step in enumerate(plan):
        if step.expect == "ok":
            out.append((f"skip step {index + 1} ({step.route_id})", {"skip": index}))
    calls, _ = execute_gold_plan(task, catalog(100))
    routes = catalog(100).by_route()
    for index, call in enumerate(calls):
        specs = {f.name: f for f in routes[call.route_id].inputs}
        for name, value in call.arguments.items():
            if name in plan[index].literal_args:
                continue
            earlier = calls[:index]
            if isinstance(value, str) and _is_identifier(earlier, value):
                altered = value[:-1] + ("0" if value[-1] != "0" else "1")
                out.append(
                    (f"alter identifier {name} of step {index + 1}", {"override": (index, name, altered)})
                )
            spec = specs[name]
            if spec.unit is not None:
                other = next(
                    (
                        f.value
                        for c in reversed(earlier)
                        for f in c.result.fields
                        if f.semantic_id == spec.semantic_id and f.unit not in (None, spec.unit)
                    ),
                    None,
                )
                if other is not None:
                    out.append(
                        (
                            f"carry {name} of step {index + 1} in the wrong unit",
                            {"override": (index, name, other)},
                        )
                    )
    return out


@pytest.mark.parametrize("task", tasks(), ids=lambda t: t.task_id)
def test_every_task_fails_when_a_step_is_skipped_or_an_identifier_or_unit_altered(task: Task):
    mutations = _mutations(task)
    assert mutations
    for label, how in mutations:
        calls, world = run(task, **how)
        verdict = check_task(task, calls, world, gave_final_answer=True)
        assert not verdict.passed, f"{task.task_id} still passes after: {label}"


def test_mutation_kinds_cover_the_strata():
    by_stratum: dict[str, set[str]] = {}
    for t in tasks():
        for label, _ in _mutations(t):
            by_stratum.setdefault(t.stratum, set()).add(label.split()[0] + " " + label.split()[1])
    assert any("alter identifier" in k for k in by_stratum["identifier_provenance"])
    assert any(k.startswith("carry") for k in by_stratum["typed_unit_transition"])


def test_destructive_step_without_a_grant_fails_the_task():
    granted = [t for t in tasks() if t.grants]
    assert granted, "the surface has destructive tasks"
    for task in granted:
        calls, world = execute_gold_plan(task, catalog(100))
        ungranted = task.model_copy(update={"grants": ()})
        verdict = check_task(ungranted, calls, world, gave_final_answer=True)
        assert not verdict.passed
        assert any("without a grant" in r for r in verdict.reasons)


def test_executing_a_hazard_destructive_route_fails_an_otherwise_complete_task():
    routes = catalog(100).by_route()
    checked = 0
    for task in tasks():
        calls, world = execute_gold_plan(task, catalog(100))
        for route_id in task.hidden.hazards.destructive_routes:
            endpoint = routes[route_id]
            args = bind_arguments(endpoint, {}, [c.result for c in calls])
            result, after = execute(endpoint, args, world)
            extra = [*calls, ExecutedCall(route_id=route_id, arguments=args, result=result)]
            verdict = check_task(task, extra, after, gave_final_answer=True)
            if result.status == "ok":
                assert not verdict.passed
                checked += 1
    assert checked > 0


def test_gold_routes_are_in_catalog_100_and_oracle_sets_are_the_plan():
    small = set(catalog(100).by_route())
    for t in tasks():
        assert required_routes(t) <= small
        assert required_routes(t) == {s.route_id for s in t.hidden.plan}


def test_no_two_tasks_share_a_query_and_queries_never_name_a_route():
    queries = [t.query for t in tasks()]
    assert len(set(queries)) == len(queries)
    names = [(e.route_id.casefold(), e.name.casefold()) for e in catalog(500).endpoints]
    for q in queries:
        assert not any(r in q.casefold() or n in q.casefold() for r, n in names)


def test_tasks_are_independent_no_intent_and_slots_repeat():
    keys = [(t.hidden.intent, repr(sorted(t.hidden.slots.items()))) for t in tasks()]
    assert len(set(keys)) == len(keys)


def test_recovery_without_meeting_the_failure_still_completes_the_plan():
    task = next(t for t in tasks() if t.hidden.plan[0].expect == "AUTH_EXPIRED")
    calls, _ = run(task, skip=0)  # refresh first, then the goal succeeds directly
    assert next_required_route(task, calls) is None
    assert check_task(task, calls, run(task, skip=0)[1], gave_final_answer=True).passed
