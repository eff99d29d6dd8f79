"""Sample the surface: per stratum x language cell, ``tasks_per_cell`` drafts (intent, slots, phrasing).

Each cell has its own seeded generator (surface seed, stratum, language). Intents of the stratum are
shuffled and taken in turn, so a cell uses as many distinct goals as it can; slot values come from the
language's own pools, so no task is a translation of another. No (intent, slot values) pair and no
query text repeats anywhere in the surface: an intent whose slot space is used up (a closed choice
already taken in another language) gives way to the next one. Which tasks of a cell carry planted
text is drawn here too.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from compiler.generate.intents import ResolvedIntent
from compiler.generate.load import GeneratorInputs
from compiler.generate.phrasing import parse_phrasing
from compiler.generate.slots import SlotValue, draw
from runtime.core.errors import SchemaRouterError


@dataclass(frozen=True)
class Draft:
    task_id: str
    stratum: str
    language: str
    intent: ResolvedIntent
    slots: dict[str, SlotValue]
    query: str
    injected: bool


def _draw_slots(
    inputs: GeneratorInputs, ri: ResolvedIntent, lang: str, rng: random.Random
) -> dict[str, SlotValue]:
    slots: dict[str, SlotValue] = {}
    for name in sorted(ri.slot_pools):
        pool = ri.slot_pools[name]
        for _ in range(50):
            value = draw(inputs, pool, lang, rng)
            if all(not (ri.slot_pools[o] == pool and v.value == value.value) for o, v in slots.items()):
                break
        slots[name] = value
    return slots


def sample_drafts(inputs: GeneratorInputs, resolved: list[ResolvedIntent]) -> list[Draft]:
    drafts: list[Draft] = []
    used_keys: set[str] = set()
    used_queries: set[str] = set()
    per_cell = inputs.tasks_per_cell
    for stratum in inputs.strata:
        pool = sorted((ri for ri in resolved if ri.intent.stratum == stratum.id), key=lambda ri: ri.intent.id)
        if not pool:
            raise SchemaRouterError(f"{inputs.intents_file}: no intent for stratum {stratum.id}")
        for lang in inputs.languages:
            rng = random.Random(f"{inputs.seeds['surface']}:{stratum.id}:{lang}")
            order = list(pool)
            rng.shuffle(order)
            injected = set(rng.sample(range(per_cell), inputs.generator.surface.injected_tasks_per_cell))
            used_here: set[str] = set()
            for n in range(per_cell):
                # Prefer intents this cell has not used; skip any whose slot space is exhausted.
                rotated = order[n % len(order) :] + order[: n % len(order)]
                candidates = [ri for ri in rotated if ri.intent.id not in used_here] + rotated
                found = None
                for ri in candidates:
                    for _ in range(60):
                        slots = _draw_slots(inputs, ri, lang, rng)
                        phrasing = rng.choice(ri.intent.phrasings[lang])
                        query = parse_phrasing(phrasing).fill({k: v.text for k, v in slots.items()})
                        values = {k: v.value for k, v in sorted(slots.items())}
                        key = json.dumps([ri.intent.id, values], sort_keys=True)
                        if key not in used_keys and query not in used_queries:
                            found = (ri, slots, query, key)
                            break
                    if found:
                        break
                if found is None:
                    raise SchemaRouterError(f"{stratum.code}-{lang}: cannot draw a new task")
                ri, slots, query, key = found
                used_here.add(ri.intent.id)
                used_keys.add(key)
                used_queries.add(query)
                drafts.append(
                    Draft(
                        task_id=f"{stratum.code}-{lang}-{n + 1:02d}",
                        stratum=stratum.id,
                        language=lang,
                        intent=ri,
                        slots=slots,
                        query=query,
                        injected=n in injected,
                    )
                )
    return drafts
