"""One function per ``behavior.op``. Each reads the world and returns an :class:`Outcome`; none mutates.

Ops: ``get`` (a record by ID), ``find`` (the newest record matching arguments), ``list`` (all matching
records), ``create`` / ``upsert`` (a record whose ID is derived from its inputs), ``update``,
``delete``, ``convert`` (units and currency), ``derive`` (values computed from the arguments),
``refresh`` (renew a realm's session), ``revoke`` (expire every session) and ``resolve`` (stale ID ->
current ID).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from runtime.catalog.model import Endpoint
from runtime.core.json_value import JSONObject
from runtime.simulator.expressions import Context, evaluate
from runtime.simulator.hashing import canonical_value, decimal_of, stable_identifier
from runtime.simulator.units import UnitError, convert
from runtime.simulator.world import Session, World


@dataclass(frozen=True)
class Outcome:
    """Output values by field name and the resulting world, or a typed error."""

    world: World
    values: dict[str, Any] = field(default_factory=dict)
    error: tuple[str, str] | None = None


def _fail(world: World, error_class: str, detail: str) -> Outcome:
    return Outcome(world=world, error=(error_class, detail))


def _outputs(endpoint: Endpoint, ctx: Context) -> dict[str, Any]:
    """Each output from its expression in ``behavior.outputs``, else the record's field of that name."""
    exprs: dict[str, Any] = endpoint.behavior.get("outputs", {})
    values: dict[str, Any] = {}
    for f in endpoint.outputs:
        if f.name in exprs:
            values[f.name] = evaluate(exprs[f.name], ctx, f.name)
        elif ctx.record is not None and f.name in ctx.record:
            values[f.name] = ctx.record[f.name]
    return values


def _lookup(b: dict[str, Any], args: dict[str, Any], world: World) -> tuple[str, dict[str, Any] | None]:
    record_id = str(args.get(b["key_input"]))
    return record_id, world.records(b["collection"]).get(record_id)


def _not_found(b: dict[str, Any], record_id: str, world: World) -> Outcome:
    if record_id in world.aliases.get(b["collection"], {}):
        return _fail(
            world, "NOT_FOUND", f"'{record_id}' is no longer valid: the record was merged or migrated"
        )
    return _fail(world, "NOT_FOUND", f"no {b['collection']} record '{record_id}'")


def _norm(value: Any) -> Any:
    return " ".join(value.casefold().split()) if isinstance(value, str) else value


def _equal(record_value: Any, argument: Any) -> bool:
    """Strings compare case- and whitespace-insensitively; everything else exactly."""
    return bool(_norm(record_value) == _norm(argument))


def _contains(record_value: Any, argument: Any) -> bool:
    """Either string contains the other (a forgiving place or text search)."""
    a, b = _norm(record_value), _norm(argument)
    return isinstance(a, str) and isinstance(b, str) and bool(b) and (b in a or a in b)


def matching_records(b: Mapping[str, Any], args: JSONObject, world: World) -> tuple[JSONObject, ...]:
    """Records whose ``match`` fields equal the arguments (``contains`` fields contain them) and whose
    ``where`` fields equal constants; newest first by ``order_by`` (``order: asc`` for oldest first),
    ties by ID."""
    match: dict[str, str] = b.get("match", {})
    contains: dict[str, str] = b.get("contains", {})
    where: dict[str, Any] = b.get("where", {})
    id_field = b.get("id_field", "id")
    found = [
        r
        for r in world.records(b["collection"]).values()
        if all(name in args and _equal(r.get(fld), args[name]) for fld, name in match.items())
        and all(name in args and _contains(r.get(fld), args[name]) for fld, name in contains.items())
        and all(r.get(fld) == value for fld, value in where.items())
    ]
    order_by = b.get("order_by")
    found.sort(key=lambda r: str(r.get(id_field)))
    if order_by:
        found.sort(key=lambda r: str(r.get(order_by)), reverse=b.get("order", "desc") != "asc")
    return tuple(found)


def op_get(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    b = e.behavior
    record_id, record = _lookup(b, args, world)
    if record is None:
        return _not_found(b, record_id, world)
    return Outcome(world, _outputs(e, Context(e.route_id, args, world, record=record)))


def op_find(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    found = matching_records(e.behavior, args, world)
    if not found:
        return _fail(world, "NOT_FOUND", f"no {e.behavior['collection']} record matches the arguments")
    return Outcome(world, _outputs(e, Context(e.route_id, args, world, record=found[0])))


def op_list(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    b = e.behavior
    found = matching_records(b, args, world)
    ctx = Context(e.route_id, args, world, matches=found, id_field=b.get("id_field"))
    return Outcome(world, _outputs(e, ctx))


def _create(e: Endpoint, args: JSONObject, world: World, *, upsert: bool) -> Outcome:
    b = e.behavior
    for name, collection in b.get("references", {}).items():
        if name in args and str(args[name]) not in world.records(collection):
            return _not_found({"collection": collection}, str(args[name]), world)
    required = [f.name for f in e.inputs if f.required]
    id_from = b.get("id_from", required)
    new_id = stable_identifier(b["id_prefix"], e.route_id, {k: args.get(k) for k in id_from})
    existing = world.records(b["collection"]).get(new_id)
    if existing is not None and not upsert:
        if b.get("if_exists") == "return":
            return Outcome(
                world, _outputs(e, Context(e.route_id, args, world, record=existing, new_id=new_id))
            )
        return _fail(world, "CONFLICT", f"{b['collection']} record '{new_id}' already exists")
    record: dict[str, Any] = {b["id_field"]: new_id}
    for name in b.get("store", required):
        if name in args:
            record[name] = canonical_value(args[name])
    ctx = Context(e.route_id, args, world, record=record, new_id=new_id)
    for name, expr in b.get("set", {}).items():
        record[name] = evaluate(expr, ctx, name)
    world = world.with_record(b["collection"], new_id, record)
    return Outcome(world, _outputs(e, Context(e.route_id, args, world, record=record, new_id=new_id)))


def op_create(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    return _create(e, args, world, upsert=False)


def op_upsert(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    return _create(e, args, world, upsert=True)


def op_update(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    b = e.behavior
    record_id, record = _lookup(b, args, world)
    if record is None:
        return _not_found(b, record_id, world)
    conflict: dict[str, Any] = b.get("conflict_if", {})
    if conflict and all(record.get(k) == v for k, v in conflict.items()):
        return _fail(world, "CONFLICT", f"{b['collection']} record '{record_id}' is already in that state")
    updated = dict(record)
    ctx = Context(e.route_id, args, world, record=record)
    for name, expr in b.get("set", {}).items():
        updated[name] = canonical_value(evaluate(expr, ctx, name))
    world = world.with_record(b["collection"], record_id, updated)
    return Outcome(world, _outputs(e, Context(e.route_id, args, world, record=updated)))


def op_delete(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    b = e.behavior
    record_id, record = _lookup(b, args, world)
    if record is None:
        return _not_found(b, record_id, world)
    world = world.with_record(b["collection"], record_id, None)
    return Outcome(world, _outputs(e, Context(e.route_id, args, world, record=record)))


def op_convert(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    c = e.behavior["convert"]
    try:
        value = convert(decimal_of(args[c["input"]]), c["from"], c["to"], world.fx_rates)
    except UnitError as err:
        return _fail(world, "UNIT_MISMATCH", str(err))
    values: dict[str, Any] = {c["output"]: float(value)}
    if c.get("unit_output"):
        values[c["unit_output"]] = c["to"]
    values.update(_outputs(e, Context(e.route_id, args, world)))
    return Outcome(world, values)


def op_derive(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    for name, collection in e.behavior.get("references", {}).items():
        if name in args and str(args[name]) not in world.records(collection):
            return _not_found({"collection": collection}, str(args[name]), world)
    return Outcome(world, _outputs(e, Context(e.route_id, args, world)))


def op_refresh(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    realm = e.behavior["refreshes"]
    token = stable_identifier("tok", e.route_id, world.salt, realm)
    world = world.with_session(realm, Session(status="valid", token=token))
    return Outcome(world, _outputs(e, Context(e.route_id, args, world, token=token)))


def op_revoke(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    for realm in sorted(world.sessions):
        world = world.with_session(realm, Session(status="expired", token=None))
    return Outcome(world, _outputs(e, Context(e.route_id, args, world)))


def op_resolve(e: Endpoint, args: JSONObject, world: World) -> Outcome:
    b = e.behavior
    record_id = str(args.get(b["key_input"]))
    current = world.aliases.get(b["collection"], {}).get(record_id)
    if current is None and record_id in world.records(b["collection"]):
        current = record_id
    if current is None:
        return _fail(world, "NOT_FOUND", f"no {b['collection']} record '{record_id}', current or former")
    return Outcome(world, _outputs(e, Context(e.route_id, args, world, resolved=current)))


OPS: dict[str, Callable[[Endpoint, JSONObject, World], Outcome]] = {
    "get": op_get,
    "find": op_find,
    "list": op_list,
    "create": op_create,
    "upsert": op_upsert,
    "update": op_update,
    "delete": op_delete,
    "convert": op_convert,
    "derive": op_derive,
    "refresh": op_refresh,
    "resolve": op_resolve,
    "revoke": op_revoke,
}
