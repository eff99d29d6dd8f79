"""Slot values: draw them from the pools of spec/pools.yaml and render them in the query's language.

A drawn value has the literal argument (``value``, canonical: ISO dates, HH:MM times, enum codes), the
text the query shows in its language (``text``) and the facts the world stores about it.
"""

from __future__ import annotations

import datetime as dt
import random
import string
from dataclasses import dataclass, field

from compiler.generate.load import GeneratorInputs
from compiler.generate.spec_model import PoolDef, PoolValue
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject, JSONValue


@dataclass(frozen=True)
class SlotValue:
    value: JSONValue  # the literal a plan step passes (a pool's value, or the generated one)
    text: str
    facts: JSONObject = field(default_factory=dict)  # record fields the world stores with it


def fill_code(pattern: str, rng: random.Random) -> str:
    """``#`` -> digit, ``A`` -> uppercase letter, ``X`` -> uppercase letter or digit; others kept."""
    out = []
    for ch in pattern:
        if ch == "#":
            out.append(rng.choice(string.digits))
        elif ch == "A":
            out.append(rng.choice(string.ascii_uppercase))
        elif ch == "X":
            out.append(rng.choice(string.ascii_uppercase + string.digits))
        else:
            out.append(ch)
    return "".join(out)


def render_date(inputs: GeneratorInputs, iso: str, lang: str) -> str:
    d = dt.date.fromisoformat(iso)
    fmt = inputs.generator.dates[lang]
    month_name = fmt.months[d.month - 1] if fmt.months else ""
    return fmt.format.format(year=d.year, month=d.month, day=d.day, month_name=month_name)


def render_time(inputs: GeneratorInputs, hhmm: str, lang: str) -> str:
    hour, minute = (int(x) for x in hhmm.split(":"))
    hour12 = hour % 12 or 12
    return inputs.generator.times[lang].format(
        hour=hour, minute=f"{minute:02d}", hour12=hour12, ampm="AM" if hour < 12 else "PM"
    )


def _entries(pool: PoolDef, lang: str) -> tuple[PoolValue | str, ...]:
    values = pool.values or {}
    entries = values.get(lang) or values.get("all")
    if not entries:
        raise SchemaRouterError(f"spec/pools.yaml: pool has no values for {lang!r}")
    return entries


def _from_entry(entry: PoolValue | str) -> SlotValue:
    if isinstance(entry, str):
        return SlotValue(value=entry, text=entry)
    return SlotValue(
        value=entry.value if entry.value is not None else entry.text, text=entry.text, facts=dict(entry.facts)
    )


def candidates(inputs: GeneratorInputs, pool_name: str, lang: str) -> int | None:
    """How many distinct values a pool offers in a language (None: generated, effectively unbounded)."""
    pool = inputs.pools[pool_name]
    if pool.generate:
        return None
    if pool.choices:
        return len(pool.choices)
    return len(_entries(pool, lang))


def draw(inputs: GeneratorInputs, pool_name: str, lang: str, rng: random.Random) -> SlotValue:
    """One value of a pool for a query in ``lang``."""
    if pool_name not in inputs.pools:
        raise SchemaRouterError(f"spec/pools.yaml: unknown pool {pool_name!r}")
    pool = inputs.pools[pool_name]
    if pool.choices:
        choice = rng.choice(pool.choices)
        return SlotValue(value=choice.value, text=choice.text[lang])
    if pool.values:
        return _from_entry(rng.choice(_entries(pool, lang)))
    g = pool.generate or {}
    if "date" in g:
        lo, hi = g["date"]
        iso = (
            dt.date.fromisoformat(inputs.generator.today) + dt.timedelta(days=rng.randint(lo, hi))
        ).isoformat()
        return SlotValue(value=iso, text=render_date(inputs, iso, lang))
    if "time" in g:
        first, last = g["time"]
        hhmm = f"{rng.randint(first, last):02d}:{rng.choice((0, 30)):02d}"
        return SlotValue(value=hhmm, text=render_time(inputs, hhmm, lang))
    if "int" in g:
        lo, hi = g["int"]
        step = int(g.get("step", 1))
        number = lo + step * rng.randint(0, (hi - lo) // step)
        return SlotValue(value=number, text=str(number))
    if "code" in g:
        code = fill_code(g["code"], rng)
        return SlotValue(value=code, text=code)
    raise SchemaRouterError(f"spec/pools.yaml: pool {pool_name!r} has nothing to draw from")


def pool_value(inputs: GeneratorInputs, pool_name: str, lang: str, rng: random.Random) -> JSONValue:
    """A world-builder value from a pool (the literal value, in ``lang`` where the pool is localized)."""
    return draw(inputs, pool_name, lang, rng).value
