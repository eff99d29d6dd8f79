"""The small expression language of ``Endpoint.behavior``: how an output or a stored field gets its value.

An expression is a JSON object with exactly one key:

* ``arg`` name: the call's argument; ``const`` value; ``record`` field: the current record's field;
* ``id`` / ``resolved`` / ``token`` (true): the created ID, the resolved current ID, the new access token;
* ``count`` / ``first`` field / ``ids`` / ``sum`` field (list operations): over the matching records;
* ``utf8_length`` arg: byte length of a string argument; ``fx_rate`` {base, quote}: the world's rate;
* ``today`` days: the world's date plus an offset (ISO 8601);
* ``hash_number`` [lo, hi, decimals] (or {range, over: [args]} to hash only some arguments),
  ``hash_int`` [lo, hi], ``hash_choice`` [...], ``hash_id`` prefix,
  ``hash_code`` {prefixes, digits}, ``hash_time`` [first hour, last hour], ``hash_date`` [lo, hi] days:
  derived values, a pure function of the world's salt, the route, the canonical arguments and the
  output's name;
* ``linear`` {x, slope, intercept, decimals}: ``intercept + slope * x`` rounded half-up;
* ``bmi`` {mass_kg, height_cm}: body-mass index to 0.1; ``at_most`` {x, limit}: boolean ``x <= limit``;
* ``ref`` {input, collection, field}: a field of the record the argument ``input`` names;
* ``concat`` [parts]: string concatenation of literal strings and expressions.

Decimal arithmetic throughout; results become JSON numbers. Each kind is a handler registered with
``@kind(name, operand_schema)``; ``evaluate`` dispatches on the table, and ``expression_schema()`` is the
language's JSON Schema derived from it (``runtime/simulator/expression.schema.json``, ``sr schemas``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from typing import Any

from runtime.core.json_value import JSONObject, JSONValue
from runtime.simulator.hashing import decimal_of, digest_int
from runtime.simulator.world import World


class ExpressionError(ValueError):
    """A malformed behavior expression (a catalog bug, not a user error)."""


@dataclass(frozen=True)
class Context:
    """Everything an expression may read."""

    route_id: str
    args: dict[str, Any]
    world: World
    record: dict[str, Any] | None = None
    matches: tuple[dict[str, Any], ...] = ()
    id_field: str | None = None
    new_id: str | None = None
    resolved: str | None = None
    token: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _number(d: Decimal, decimals: int | None = None) -> float | int:
    if decimals is not None:
        d = d.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return float(d)


def _dec(ctx: Context, value: Any, key: str) -> Decimal:
    if isinstance(value, dict):
        value = evaluate(value, ctx, key)
    return decimal_of(value) if not isinstance(value, str) else Decimal(value)


def _h(ctx: Context, key: str) -> int:
    return digest_int(ctx.world.salt, ctx.route_id, ctx.args, key)


# A JSON Schema fragment for each kind's operand; "#/$defs/expression" is an expression, "#/$defs/number"
# a number, a numeric string or an expression.
_EXPR: JSONObject = {"$ref": "#/$defs/expression"}
_NUM: JSONObject = {"$ref": "#/$defs/number"}
_NAME: JSONObject = {"type": "string", "minLength": 1}
_TRUE: JSONObject = {"const": True}
_INT: JSONObject = {"type": "integer"}
_PAIR: JSONObject = {"type": "array", "prefixItems": [_INT, _INT], "minItems": 2, "maxItems": 2}

Handler = Callable[[Context, Any, str], JSONValue]


def _object(properties: JSONObject, *, required: list[JSONValue]) -> JSONObject:
    """The schema of an operand object: these properties, these required, nothing else."""
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


@dataclass(frozen=True)
class Kind:
    name: str
    operand: JSONObject
    fn: Handler


KINDS: dict[str, Kind] = {}


def kind(name: str, operand: JSONObject) -> Callable[[Handler], Handler]:
    """Register the handler of expression kind ``name``, with the JSON Schema of its operand."""

    def register(fn: Handler) -> Handler:
        KINDS[name] = Kind(name, operand, fn)
        return fn

    return register


def evaluate(expr: JSONValue, ctx: Context, key: str) -> JSONValue:
    """The value of ``expr`` for the output (or stored field) named ``key``."""
    if not isinstance(expr, dict) or len(expr) != 1:
        raise ExpressionError(f"expression for {key!r} must be an object with one key: {expr!r}")
    ((name, operand),) = expr.items()
    handler = KINDS.get(name)
    if handler is None:
        raise ExpressionError(f"unknown expression kind {name!r} for {key!r}")
    return handler.fn(ctx, operand, key)


def expression_schema() -> JSONObject:
    """The JSON Schema of the language, derived from the registered kinds (``sr schemas`` writes it)."""
    variants: list[JSONValue] = [
        _object({k.name: k.operand}, required=[k.name]) for k in sorted(KINDS.values(), key=lambda k: k.name)
    ]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$comment": "Generated from runtime.simulator.expressions.KINDS; do not edit. "
        "Regenerate with: sr schemas --update",
        "title": "Endpoint behavior expression",
        "$ref": "#/$defs/expression",
        "$defs": {
            "expression": {"oneOf": variants},
            "number": {"anyOf": [{"type": "number"}, {"type": "string"}, _EXPR]},
        },
    }


@kind("arg", _NAME)
def _arg(ctx: Context, spec: Any, key: str) -> Any:
    return ctx.args.get(spec)


@kind("const", {})
def _const(ctx: Context, spec: Any, key: str) -> Any:
    return spec


@kind("record", _NAME)
def _record(ctx: Context, spec: Any, key: str) -> Any:
    return (ctx.record or {}).get(spec)


@kind("id", _TRUE)
def _id(ctx: Context, spec: Any, key: str) -> Any:
    return ctx.new_id


@kind("resolved", _TRUE)
def _resolved(ctx: Context, spec: Any, key: str) -> Any:
    return ctx.resolved


@kind("token", _TRUE)
def _token(ctx: Context, spec: Any, key: str) -> Any:
    return ctx.token


@kind("count", _TRUE)
def _count(ctx: Context, spec: Any, key: str) -> Any:
    return len(ctx.matches)


@kind("sum", _NAME)
def _sum(ctx: Context, spec: Any, key: str) -> Any:
    total = sum((decimal_of(m.get(spec, 0)) for m in ctx.matches), Decimal(0))
    return _number(total, 2)


@kind("utf8_length", _NAME)
def _utf8_length(ctx: Context, spec: Any, key: str) -> Any:
    return len(str(ctx.args.get(spec, "")).encode("utf-8"))


@kind(
    "fx_rate",
    _object({"base": _NAME, "quote": _NAME}, required=["base", "quote"]),
)
def _fx_rate(ctx: Context, spec: Any, key: str) -> Any:
    rates = ctx.world.fx_rates
    base, quote = ctx.args.get(spec["base"]), ctx.args.get(spec["quote"])
    if base not in rates or quote not in rates:
        return None
    return _number(Decimal(rates[quote]) / Decimal(rates[base]), 6)


@kind("first", _NAME)
def _first(ctx: Context, spec: Any, key: str) -> Any:
    return ctx.matches[0].get(spec) if ctx.matches else None


@kind("ids", _TRUE)
def _ids(ctx: Context, spec: Any, key: str) -> Any:
    return [m.get(ctx.id_field or "id") for m in ctx.matches]


@kind("today", _INT)
def _today(ctx: Context, spec: Any, key: str) -> Any:
    return (dt.date.fromisoformat(ctx.world.today) + dt.timedelta(days=int(spec))).isoformat()


_RANGE: JSONObject = {
    "type": "array",
    "prefixItems": [{"type": "number"}, {"type": "number"}, _INT],
    "minItems": 3,
    "maxItems": 3,
}


@kind(
    "hash_number",
    {
        "anyOf": [
            _RANGE,
            _object({"range": _RANGE, "over": {"type": "array", "items": _NAME}}, required=["range"]),
        ]
    },
)
def _hash_number(ctx: Context, spec: Any, key: str) -> Any:
    lo, hi, decimals = spec["range"] if isinstance(spec, dict) else spec
    over = spec.get("over") if isinstance(spec, dict) else None
    h = _h(ctx, key) if over is None else digest_int(ctx.world.salt, {k: ctx.args.get(k) for k in over})
    steps = int((Decimal(str(hi)) - Decimal(str(lo))) * 10**decimals) + 1
    return _number(Decimal(str(lo)) + Decimal(h % steps).scaleb(-decimals), decimals)


@kind("hash_int", _PAIR)
def _hash_int(ctx: Context, spec: Any, key: str) -> Any:
    lo, hi = spec
    return int(lo) + _h(ctx, key) % (int(hi) - int(lo) + 1)


@kind("hash_choice", {"type": "array", "minItems": 1})
def _hash_choice(ctx: Context, spec: Any, key: str) -> Any:
    return spec[_h(ctx, key) % len(spec)]


# 0.14's endpoints.yaml has ``hash_id: off``, which YAML 1.1 reads as false (prefix "False"); its frozen
# catalogs carry that, so the language accepts a boolean prefix. Successors read YAML 1.2 core scalars.
@kind("hash_id", {"anyOf": [_NAME, {"type": "boolean"}]})
def _hash_id(ctx: Context, spec: Any, key: str) -> Any:
    return f"{spec}_{_h(ctx, key):016x}"


@kind(
    "hash_code",
    _object(
        {
            "prefixes": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "digits": _INT,
        },
        required=["prefixes", "digits"],
    ),
)
def _hash_code(ctx: Context, spec: Any, key: str) -> Any:
    h = _h(ctx, key)
    prefixes, digits = spec["prefixes"], int(spec["digits"])
    return f"{prefixes[h % len(prefixes)]}{(h // len(prefixes)) % 10**digits:0{digits}d}"


@kind("hash_time", _PAIR)
def _hash_time(ctx: Context, spec: Any, key: str) -> Any:
    first, last = spec
    minutes = _h(ctx, key) % ((int(last) - int(first) + 1) * 12)
    return f"{int(first) + minutes // 12:02d}:{(minutes % 12) * 5:02d}"


@kind("hash_date", _PAIR)
def _hash_date(ctx: Context, spec: Any, key: str) -> Any:
    lo, hi = spec
    offset = int(lo) + _h(ctx, key) % (int(hi) - int(lo) + 1)
    return (dt.date.fromisoformat(ctx.world.today) + dt.timedelta(days=offset)).isoformat()


@kind(
    "linear",
    _object({"x": _NUM, "slope": _NUM, "intercept": _NUM, "decimals": _INT}, required=["x"]),
)
def _linear(ctx: Context, spec: Any, key: str) -> Any:
    x = _dec(ctx, spec["x"], key)
    slope = _dec(ctx, spec.get("slope", "1"), key)
    intercept = _dec(ctx, spec.get("intercept", "0"), key)
    return _number(intercept + slope * x, int(spec.get("decimals", 2)))


@kind(
    "bmi",
    _object({"mass_kg": _NUM, "height_cm": _NUM}, required=["mass_kg", "height_cm"]),
)
def _bmi(ctx: Context, spec: Any, key: str) -> Any:
    mass = _dec(ctx, spec["mass_kg"], key)
    height_m = _dec(ctx, spec["height_cm"], key) / 100
    if height_m <= 0:
        raise ExpressionError("height must be positive")
    return _number(mass / (height_m * height_m), 1)


@kind(
    "at_most",
    _object({"x": _NUM, "limit": _NUM}, required=["x", "limit"]),
)
def _at_most(ctx: Context, spec: Any, key: str) -> Any:
    return bool(_dec(ctx, spec["x"], key) <= _dec(ctx, spec["limit"], key))


@kind(
    "ref",
    _object({"input": _NAME, "collection": _NAME, "field": _NAME}, required=["input", "collection", "field"]),
)
def _ref(ctx: Context, spec: Any, key: str) -> Any:
    target = ctx.world.records(spec["collection"]).get(str(ctx.args.get(spec["input"])), {})
    return target.get(spec["field"])


@kind("concat", {"type": "array", "items": {"anyOf": [{"type": "string"}, _EXPR]}})
def _concat(ctx: Context, spec: Any, key: str) -> Any:
    return "".join(p if isinstance(p, str) else str(evaluate(p, ctx, key)) for p in spec)


# The behavior keys whose values are expressions, by name (``op.outputs.<name>``, ``op.set.<name>``).
EXPRESSION_MAPS = ("outputs", "set")


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(expression_schema())


def check_expressions(where: str, behavior: JSONObject) -> None:
    """Raise SchemaRouterError naming ``where`` and the path of the first expression of ``behavior``
    that the language's schema rejects."""
    from runtime.core.errors import SchemaRouterError

    for section in EXPRESSION_MAPS:
        expressions = behavior.get(section) or {}
        if not isinstance(expressions, dict):
            raise SchemaRouterError(f"{where}: op.{section}: must be an object of expressions by name")
        for name, expr in sorted(expressions.items()):
            error = next(iter(_validator().iter_errors(expr)), None)
            if error is not None:
                best = _best(expr)
                raise SchemaRouterError(f"{where}: op.{section}.{name}: {best}")


def _best(expr: Any) -> str:
    from jsonschema.exceptions import best_match

    if isinstance(expr, dict) and len(expr) == 1:
        ((name, operand),) = expr.items()
        if name not in KINDS:
            return f"unknown expression kind {name!r} (known: {', '.join(sorted(KINDS))})"
        from jsonschema import Draft202012Validator

        sub = Draft202012Validator({"$defs": expression_schema()["$defs"], **KINDS[name].operand})
        error = best_match(sub.iter_errors(operand))
        if error is not None:
            path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
            return f"{name}{path}: {error.message}"
    return "an expression is an object with exactly one key, the kind"
