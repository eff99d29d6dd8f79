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

Decimal arithmetic throughout; results become JSON numbers.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from schemarouter.runtime.simulator.hashing import decimal_of, digest_int
from schemarouter.runtime.simulator.world import World


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


def evaluate(expr: Any, ctx: Context, key: str) -> Any:
    """The value of ``expr`` for the output (or stored field) named ``key``."""
    if not isinstance(expr, dict) or len(expr) != 1:
        raise ExpressionError(f"expression for {key!r} must be an object with one key: {expr!r}")
    ((kind, spec),) = expr.items()
    if kind == "arg":
        return ctx.args.get(spec)
    if kind == "const":
        return spec
    if kind == "record":
        return (ctx.record or {}).get(spec)
    if kind == "id":
        return ctx.new_id
    if kind == "resolved":
        return ctx.resolved
    if kind == "token":
        return ctx.token
    if kind == "count":
        return len(ctx.matches)
    if kind == "sum":
        total = sum((decimal_of(m.get(spec, 0)) for m in ctx.matches), Decimal(0))
        return _number(total, 2)
    if kind == "utf8_length":
        return len(str(ctx.args.get(spec, "")).encode("utf-8"))
    if kind == "fx_rate":
        rates = ctx.world.fx_rates
        base, quote = ctx.args.get(spec["base"]), ctx.args.get(spec["quote"])
        if base not in rates or quote not in rates:
            return None
        return _number(Decimal(rates[quote]) / Decimal(rates[base]), 6)
    if kind == "first":
        return ctx.matches[0].get(spec) if ctx.matches else None
    if kind == "ids":
        return [m.get(ctx.id_field or "id") for m in ctx.matches]
    if kind == "today":
        return (dt.date.fromisoformat(ctx.world.today) + dt.timedelta(days=int(spec))).isoformat()
    if kind == "hash_number":
        lo, hi, decimals = spec["range"] if isinstance(spec, dict) else spec
        over = spec.get("over") if isinstance(spec, dict) else None
        h = _h(ctx, key) if over is None else digest_int(ctx.world.salt, {k: ctx.args.get(k) for k in over})
        steps = int((Decimal(str(hi)) - Decimal(str(lo))) * 10**decimals) + 1
        return _number(Decimal(str(lo)) + Decimal(h % steps).scaleb(-decimals), decimals)
    if kind == "hash_int":
        lo, hi = spec
        return int(lo) + _h(ctx, key) % (int(hi) - int(lo) + 1)
    if kind == "hash_choice":
        return spec[_h(ctx, key) % len(spec)]
    if kind == "hash_id":
        return f"{spec}_{_h(ctx, key):016x}"
    if kind == "hash_code":
        h = _h(ctx, key)
        prefixes, digits = spec["prefixes"], int(spec["digits"])
        return f"{prefixes[h % len(prefixes)]}{(h // len(prefixes)) % 10**digits:0{digits}d}"
    if kind == "hash_time":
        first, last = spec
        minutes = _h(ctx, key) % ((int(last) - int(first) + 1) * 12)
        return f"{int(first) + minutes // 12:02d}:{(minutes % 12) * 5:02d}"
    if kind == "hash_date":
        lo, hi = spec
        offset = int(lo) + _h(ctx, key) % (int(hi) - int(lo) + 1)
        return (dt.date.fromisoformat(ctx.world.today) + dt.timedelta(days=offset)).isoformat()
    if kind == "linear":
        x = _dec(ctx, spec["x"], key)
        slope = _dec(ctx, spec.get("slope", "1"), key)
        intercept = _dec(ctx, spec.get("intercept", "0"), key)
        return _number(intercept + slope * x, int(spec.get("decimals", 2)))
    if kind == "bmi":
        mass = _dec(ctx, spec["mass_kg"], key)
        height_m = _dec(ctx, spec["height_cm"], key) / 100
        if height_m <= 0:
            raise ExpressionError("height must be positive")
        return _number(mass / (height_m * height_m), 1)
    if kind == "at_most":
        return bool(_dec(ctx, spec["x"], key) <= _dec(ctx, spec["limit"], key))
    if kind == "ref":
        target = ctx.world.records(spec["collection"]).get(str(ctx.args.get(spec["input"])), {})
        return target.get(spec["field"])
    if kind == "concat":
        return "".join(p if isinstance(p, str) else str(evaluate(p, ctx, key)) for p in spec)
    raise ExpressionError(f"unknown expression kind {kind!r} for {key!r}")
