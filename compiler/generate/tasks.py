"""Assemble a ``Task`` from a draft: gold plan, grants, world, milestones, expected answer, hazards.

Order of work: plan steps with the draft's literal values -> grants for destructive steps (pinned to
the values the user stated) -> world setup (expired realm or stale identifier, planted text, a
rate-limited distractor) -> primed world -> gold run -> milestones (each ok step's values that later
steps consume, and the answer for the goal) -> hazards and distractors in catalog_100.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from compiler.generate.endpoints import Provenance
from compiler.generate.load import GeneratorInputs
from compiler.generate.nesting import distractor_kinds
from compiler.generate.sampling import Draft
from compiler.generate.worlds import WorldSetup, build_world
from runtime.catalog.model import Catalog, Endpoint
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject
from runtime.simulator.calls import ExecutedCall
from runtime.simulator.world import World
from runtime.surface.gold import run_plan
from runtime.surface.model import (
    ExpectedValue,
    Grant,
    Hazards,
    HiddenTask,
    Milestone,
    PlanStep,
    Task,
)


def _plan(draft: Draft) -> tuple[PlanStep, ...]:
    return tuple(
        PlanStep(
            route_id=s.route_id,
            literal_args={name: draft.slots[slot].value for name, slot in s.slot_inputs},
            expect=s.expect,
        )
        for s in draft.intent.plan
    )


def _noise(
    inputs: GeneratorInputs, draft: Draft, routes: Mapping[str, Endpoint]
) -> tuple[tuple[JSONObject, ...], ...]:
    """Per step: other values of the pools its literal match inputs came from (noise records)."""
    out = []
    for s in draft.intent.plan:
        b = routes[s.route_id].behavior
        fields = {name: fld for fld, name in {**b.get("match", {}), **b.get("contains", {})}.items()}
        entries: list[JSONObject] = []
        for input_name, slot in s.slot_inputs:
            pool = inputs.pools[draft.intent.slot_pools[slot]]
            if input_name not in fields or not pool.values:
                continue
            for entry in pool.values.get(draft.language) or pool.values.get("all") or ():
                value = (
                    entry
                    if isinstance(entry, str)
                    else (entry.value if entry.value is not None else entry.text)
                )
                facts = {} if isinstance(entry, str) else dict(entry.facts)
                if value != draft.slots[slot].value:
                    entries.append({**facts, fields[input_name]: value})
        out.append(tuple(entries))
    return tuple(out)


def _step_facts(draft: Draft) -> tuple[JSONObject, ...]:
    return tuple(
        {k: v for _, slot in s.slot_inputs for k, v in draft.slots[slot].facts.items()}
        for s in draft.intent.plan
    )


def _milestones(
    calls: Sequence[ExecutedCall],
    plan: Sequence[PlanStep],
    answer: tuple[ExpectedValue, ...],
    routes: Mapping[str, Endpoint],
) -> tuple[Milestone, ...]:
    """Each ok step's milestone: the values later steps consumed from it (the answer for the goal)."""
    consumed: dict[int, dict[str, ExpectedValue]] = {}
    for j, call in enumerate(calls):
        specs = {f.name: f for f in routes[call.route_id].inputs}
        for name, value in call.arguments.items():
            if name in plan[j].literal_args:
                continue
            semantic = specs[name].semantic_id
            for k in range(j - 1, -1, -1):
                hit = next(
                    (f for f in calls[k].result.fields if f.semantic_id == semantic and f.value == value),
                    None,
                )
                if calls[k].result.status == "ok" and hit is not None:
                    consumed.setdefault(k, {})[hit.name] = ExpectedValue(
                        name=hit.name, semantic_id=hit.semantic_id, unit=hit.unit, value=hit.value
                    )
                    break
    last_ok = max(i for i, s in enumerate(plan) if s.expect == "ok")
    milestones = []
    for i, step in enumerate(plan):
        if step.expect != "ok":
            continue
        values = (
            answer if i == last_ok else tuple(consumed.get(i, {})[n] for n in sorted(consumed.get(i, {})))
        )
        milestones.append(Milestone(route_id=step.route_id, values=values))
    return tuple(milestones)


def _require_in_smallest(draft: Draft, plan_routes: set[str], small: Mapping[str, Endpoint]) -> None:
    if not plan_routes <= set(small):
        raise SchemaRouterError(
            f"{draft.task_id}: plan routes missing from catalog_100: {plan_routes - set(small)}"
        )


def _grants(plan: Sequence[PlanStep], routes: Mapping[str, Endpoint]) -> tuple[Grant, ...]:
    """One grant per destructive step, pinned to the values the user stated."""
    return tuple(
        Grant(route_id=s.route_id, arguments=dict(s.literal_args) or None)
        for s in plan
        if routes[s.route_id].side_effect == "destructive"
    )


def _destructive_hazards(small: Mapping[str, Endpoint], domains: set[str], granted: set[str]) -> list[str]:
    """The ungranted destructive routes of catalog_100 in the plan's domains (any domain, if none)."""
    destructive = sorted(
        r
        for r, e in small.items()
        if e.side_effect == "destructive" and e.domain in domains and r not in granted
    )
    if destructive:
        return destructive
    return sorted(r for r, e in small.items() if e.side_effect == "destructive" and r not in granted)


def _injection(
    inputs: GeneratorInputs,
    draft: Draft,
    plan: Sequence[PlanStep],
    small: Mapping[str, Endpoint],
    destructive: Sequence[str],
    rng: random.Random,
) -> tuple[dict[str, str], tuple[str, ...]]:
    """The planted text naming a destructive tool (on the first ok step's result), when the draft has one:
    the messages by route and the injected texts. Draws from ``rng`` only for an injected draft."""
    if not draft.injected:
        return {}, ()
    target = small[rng.choice(destructive)]
    text = rng.choice(inputs.generator.surface.injections).format(tool=target.name)
    first_ok = next(s.route_id for s in plan if s.expect == "ok")
    return {first_ok: text}, (text,)


def _rate_limited(
    inputs: GeneratorInputs,
    small: Mapping[str, Endpoint],
    goal: Endpoint,
    plan_routes: set[str],
    rng: random.Random,
) -> tuple[str, ...]:
    """Read routes of the goal's domain outside the plan that the world rate-limits (distractors)."""
    calm = sorted(
        r
        for r, e in small.items()
        if e.domain == goal.domain and r not in plan_routes and e.side_effect == "read"
    )
    return tuple(sorted(rng.sample(calm, min(len(calm), inputs.generator.world.rate_limited_routes))))


def _failure_setup(draft: Draft, goal: Endpoint) -> tuple[str | None, tuple[str, str] | None]:
    """The intent's recoverable failure: the goal's expired realm, and the stale (collection, id)."""
    failure = draft.intent.intent.failure
    if failure is None:
        return None, None
    expired_realm = goal.behavior.get("realm") if failure.error == "AUTH_EXPIRED" else None
    stale = (
        (goal.behavior["collection"], str(draft.slots[failure.stale_slot].value))
        if failure.stale_slot
        else None
    )
    return expired_realm, stale


def _world_setup(
    inputs: GeneratorInputs,
    draft: Draft,
    plan: tuple[PlanStep, ...],
    routes: Mapping[str, Endpoint],
    goal: Endpoint,
    *,
    messages: dict[str, str],
    rate_limited: tuple[str, ...],
) -> WorldSetup:
    """What the world builder needs: the plan's facts and noise, the failure, the planted texts."""
    expired_realm, stale = _failure_setup(draft, goal)
    return WorldSetup(
        task_id=draft.task_id,
        language=draft.language,
        plan=plan,
        step_facts=_step_facts(draft),
        step_noise=_noise(inputs, draft, routes),
        expired_realm=expired_realm,
        stale=stale,
        messages=messages,
        rate_limited=rate_limited,
    )


def _gold_run(
    draft: Draft, plan: tuple[PlanStep, ...], full: Catalog, world: World
) -> tuple[list[ExecutedCall], World]:
    """The gold plan run on the primed world; every step must meet the outcome the plan expects."""
    calls, final_world = run_plan(plan, full, world)
    for call, step in zip(calls, plan, strict=True):
        if call.outcome != step.expect:
            raise SchemaRouterError(f"{draft.task_id}: re-run of {step.route_id} gave {call.outcome}")
    return calls, final_world


def _answer(draft: Draft, calls: Sequence[ExecutedCall]) -> tuple[ExpectedValue, ...]:
    """The goal's result fields the intent asks for (all of them when it names none)."""
    wanted = draft.intent.intent.answer
    return tuple(
        ExpectedValue(name=f.name, semantic_id=f.semantic_id, unit=f.unit, value=f.value)
        for f in calls[-1].result.fields
        if wanted is None or f.name in wanted
    )


def assemble_task(
    inputs: GeneratorInputs,
    draft: Draft,
    full: Catalog,
    catalog_100: Catalog,
    provenance: Mapping[str, Provenance],
) -> Task:
    routes = full.by_route()
    small = catalog_100.by_route()
    rng = random.Random(f"{inputs.seeds['world']}:{draft.task_id}")
    plan = _plan(draft)
    plan_routes = {s.route_id for s in plan}
    _require_in_smallest(draft, plan_routes, small)
    grants = _grants(plan, routes)
    domains = {routes[r].domain for r in plan_routes}
    destructive = _destructive_hazards(small, domains, {g.route_id for g in grants})
    # The world's randomness is drawn in this order: injection, rate limits, then the world itself.
    messages, injected = _injection(inputs, draft, plan, small, destructive, rng)
    goal = routes[plan[-1].route_id]
    rate_limited = _rate_limited(inputs, small, goal, plan_routes, rng)
    setup = _world_setup(inputs, draft, plan, routes, goal, messages=messages, rate_limited=rate_limited)
    world = build_world(inputs, setup, routes, rng)
    calls, final_world = _gold_run(draft, plan, full, world)
    answer = _answer(draft, calls)
    kinds = distractor_kinds(small, provenance, plan_routes)
    return Task(
        task_id=draft.task_id,
        stratum=draft.stratum,
        language=draft.language,
        query=draft.query,
        grants=grants,
        hidden=HiddenTask(
            intent=draft.intent.intent.id,
            slots={k: v.value for k, v in sorted(draft.slots.items())},
            plan=plan,
            milestones=_milestones(calls, plan, answer, routes),
            expected_answer=answer,
            world=world,
            expected_world=final_world,
            hazards=Hazards(destructive_routes=tuple(destructive), injected_texts=injected),
            distractors={k: tuple(v) for k, v in kinds.items() if v},
        ),
    )
