"""Build a task's world by running its gold plan and priming the records each step reads.

Order of work: an empty world with the seeded salt, valid sessions and jittered exchange rates; the
stratum's setup (an expired session, or a stale identifier aliased to a fresh one); then each step of
the plan in order: bind its arguments (the shared binding rule), create the records an ok step must
find (from the slot's facts, else the field's ``gen`` hint) in both the initial and the running world,
add a few noise records, execute, and check the outcome is the expected one. The initial world is the
primed one; the plan is then re-run from it by the caller to get the expected results.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from compiler.generate.endpoints import field_name
from compiler.generate.load import GeneratorInputs
from compiler.generate.slots import fill_code, pool_value
from runtime.catalog.model import Endpoint
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject, JSONValue
from runtime.simulator.binding import bind_arguments
from runtime.simulator.execute import execute
from runtime.simulator.ops import matching_records
from runtime.simulator.result import ToolResult
from runtime.simulator.world import Session, World
from runtime.surface.model import PlanStep


@dataclass(frozen=True)
class WorldSetup:
    task_id: str
    language: str
    plan: tuple[PlanStep, ...]
    step_facts: tuple[JSONObject, ...]  # facts of the slots that feed each step's literals
    step_noise: tuple[tuple[JSONObject, ...], ...]  # other pool entries for noise records
    expired_realm: str | None
    stale: tuple[str, str] | None  # (collection, stale id)
    messages: dict[str, str]
    rate_limited: tuple[str, ...]


def _gen(inputs: GeneratorInputs, key: str, lang: str, rng: random.Random, today: str) -> Any:
    f = inputs.fields[key]
    if not f.gen:
        raise SchemaRouterError(f"spec/fields.yaml: field {key} has no gen, but a world needs a value for it")
    ((kind, spec),) = f.gen.items()
    if kind == "number":
        lo, hi, places = spec
        step = Decimal(1).scaleb(-places)
        value = Decimal(str(lo)) + step * rng.randint(0, int((Decimal(str(hi)) - Decimal(str(lo))) / step))
        return float(value.quantize(step, rounding=ROUND_HALF_UP))
    if kind == "int":
        return rng.randint(spec[0], spec[1])
    if kind == "choice":
        return rng.choice(spec)
    if kind == "id":
        return f"{spec}_{rng.getrandbits(48):012x}"
    if kind == "code":
        return fill_code(spec, rng)
    if kind == "date":
        return (dt.date.fromisoformat(today) + dt.timedelta(days=rng.randint(spec[0], spec[1]))).isoformat()
    if kind == "time":
        return f"{rng.randint(spec[0], spec[1]):02d}:{rng.choice((0, 15, 30, 45)):02d}"
    if kind == "pool":
        return pool_value(inputs, spec, lang, rng)
    if kind == "const":
        return spec
    raise SchemaRouterError(f"spec/fields.yaml: field {key}: unknown gen {kind!r}")


def make_record(
    inputs: GeneratorInputs,
    collection: str,
    fixed: Mapping[str, JSONValue],
    lang: str,
    rng: random.Random,
    today: str,
) -> JSONObject:
    """A record of a resource: fixed values, then facts, then each field's gen hint."""
    resource = inputs.resources[collection]
    record: JSONObject = {}
    for key in resource.fields:
        name = field_name(inputs, key)
        record[name] = fixed[name] if name in fixed else _gen(inputs, key, lang, rng, today)
    return record


def _id_of(inputs: GeneratorInputs, collection: str, record: JSONObject) -> str:
    return str(record[field_name(inputs, inputs.resources[collection].id_field)])


def _prime(
    inputs: GeneratorInputs,
    setup: WorldSetup,
    index: int,
    endpoint: Endpoint,
    args: dict[str, Any],
    initial: World,
    running: World,
    rng: random.Random,
) -> tuple[World, World]:
    b = endpoint.behavior
    op, collection = b.get("op"), b.get("collection")
    if (
        collection is None
        or collection not in inputs.resources
        or op not in {"get", "update", "delete", "find", "list"}
    ):
        return initial, running
    today = initial.today
    id_name = field_name(inputs, inputs.resources[collection].id_field)
    fixed: JSONObject = dict(setup.step_facts[index])
    new: list[JSONObject] = []
    if op in {"get", "update", "delete"}:
        if str(args[b["key_input"]]) in running.records(collection):
            return initial, running
        new.append(
            make_record(
                inputs, collection, {**fixed, id_name: args[b["key_input"]]}, setup.language, rng, today
            )
        )
    else:
        if matching_records(b, args, running):
            return initial, running
        match = {fld: args[name] for fld, name in b.get("match", {}).items()}
        match.update({fld: args[name] for fld, name in b.get("contains", {}).items()})
        match.update(b.get("where", {}))
        count = rng.randint(1, 3) if (op == "list" or b.get("order_by")) else 1
        new.extend(
            make_record(inputs, collection, {**fixed, **match}, setup.language, rng, today)
            for _ in range(count)
        )
        for facts in setup.step_noise[index][: rng.randint(*inputs.generator.world.noise_records)]:
            noise = make_record(inputs, collection, dict(facts), setup.language, rng, today)
            if not any(noise.get(fld) == value for fld, value in match.items()):
                new.append(noise)
    for record in new:
        record_id = _id_of(inputs, collection, record)
        initial = initial.with_record(collection, record_id, record)
        running = running.with_record(collection, record_id, record)
    return initial, running


def _rates(inputs: GeneratorInputs, rng: random.Random) -> dict[str, str]:
    jitter = Decimal(str(inputs.generator.world.fx_jitter_pct)) / 100
    rates = {}
    for code, base in sorted(inputs.generator.world.fx_rates.items()):
        if code == "USD":
            rates[code] = base
            continue
        factor = 1 + jitter * (Decimal(rng.randint(-1000, 1000)) / 1000)
        rates[code] = str((Decimal(base) * factor).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP))
    return rates


def build_world(
    inputs: GeneratorInputs, setup: WorldSetup, routes: dict[str, Endpoint], rng: random.Random
) -> World:
    """The primed initial world of a task; raises if any step's outcome differs from the plan's."""
    world = World(
        world_id=setup.task_id,
        today=inputs.generator.today,
        salt=f"{rng.getrandbits(64):016x}",
        sessions={realm: Session(status="valid") for realm in inputs.generator.world.realms},
        fx_rates=_rates(inputs, rng),
        rate_limited=setup.rate_limited,
        messages=setup.messages,
    )
    if setup.expired_realm:
        world = world.with_session(setup.expired_realm, Session(status="expired"))
    if setup.stale:
        collection, stale_id = setup.stale
        id_key = inputs.resources[collection].id_field
        current = stale_id
        while current == stale_id:
            current = str(_gen(inputs, id_key, setup.language, rng, world.today))
        world = world.model_copy(update={"aliases": {collection: {stale_id: current}}})
    initial, running = world, world
    observations: list[ToolResult] = []
    for index, step in enumerate(setup.plan):
        endpoint = routes[step.route_id]
        args = bind_arguments(endpoint, step.literal_args, observations)
        if step.expect == "ok":
            initial, running = _prime(inputs, setup, index, endpoint, args, initial, running, rng)
        result, running = execute(endpoint, args, running)
        outcome = "ok" if result.status == "ok" else result.error_class
        if outcome != step.expect:
            raise SchemaRouterError(
                f"{setup.task_id}: step {index + 1} {step.route_id} gave {outcome}, expected {step.expect}: "
                f"{result.message}"
            )
        observations.append(result)
    return initial
