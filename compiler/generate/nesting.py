"""Distractor kinds and the nesting order that makes catalog_100 ⊂ catalog_250 ⊂ catalog_500.

Kinds, relative to a set of plan routes: destructive_lookalike (a destructive route declared a
look-alike of a plan route), deprecated_version (an older version of a plan route),
near_duplicate_name (a beta version of a plan route, or a declared near duplicate),
same_output_other_inputs (produces a plan route's output semantic and unit from other inputs),
same_verb_other_domain (the plan route's verb in a domain the plan does not touch).

The order: every route a task needs (seeded shuffle), then the distractors of those routes, taking one
of each kind in ``catalog.interleave`` in turn (each kind seeded-shuffled), then everything else.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping

from compiler.generate.endpoints import Provenance
from runtime.catalog.model import Endpoint

KINDS = (
    "destructive_lookalike",
    "deprecated_version",
    "near_duplicate_name",
    "same_output_other_inputs",
    "same_verb_other_domain",
)


def distractor_kinds(
    endpoints: Mapping[str, Endpoint], provenance: Mapping[str, Provenance], plan: Iterable[str]
) -> dict[str, list[str]]:
    """Kind -> sorted routes (outside the plan) that are that kind of distractor for ``plan``."""
    plan_ids = set(plan)
    plan_bases = {provenance[r].base for r in plan_ids}
    plan_domains = {endpoints[r].domain for r in plan_ids}
    plan_verbs = {provenance[r].verb for r in plan_ids}
    plan_near = {provenance[r].near_duplicate_of for r in plan_ids} - {None}
    plan_io = [
        (
            {(o.semantic_id, o.unit) for o in endpoints[r].outputs},
            {f.semantic_id for f in endpoints[r].inputs if f.required},
        )
        for r in plan_ids
    ]
    kinds: dict[str, list[str]] = {k: [] for k in KINDS}
    for route_id in sorted(endpoints):
        if route_id in plan_ids:
            continue
        e, p = endpoints[route_id], provenance[route_id]
        if e.side_effect == "destructive" and p.lookalike_of in plan_bases:
            kinds["destructive_lookalike"].append(route_id)
        if p.origin == "deprecated" and p.variant_of in plan_ids:
            kinds["deprecated_version"].append(route_id)
        if (
            (p.origin == "beta" and p.variant_of in plan_ids)
            or p.near_duplicate_of in plan_bases
            or p.base in plan_near
        ):
            kinds["near_duplicate_name"].append(route_id)
        if p.variant_of not in plan_ids:
            outputs = {(o.semantic_id, o.unit) for o in e.outputs}
            needs = {f.semantic_id for f in e.inputs if f.required}
            if any(outputs & outs and needs != ins for outs, ins in plan_io):
                kinds["same_output_other_inputs"].append(route_id)
        if p.verb in plan_verbs and e.domain not in plan_domains:
            kinds["same_verb_other_domain"].append(route_id)
    return kinds


def nesting_order(
    endpoints: Mapping[str, Endpoint],
    provenance: Mapping[str, Provenance],
    required: Iterable[str],
    *,
    seed: int,
    interleave: tuple[str, ...],
) -> list[str]:
    """Every route of the full catalog in nesting order (required routes first)."""
    rng = random.Random(f"{seed}:nesting")
    head = sorted(set(required))
    rng.shuffle(head)
    placed = set(head)
    kinds = distractor_kinds(endpoints, provenance, head)
    queues: list[list[str]] = []
    for kind in interleave:
        members = [r for r in kinds.get(kind, []) if r not in placed] if kind != "other" else []
        if kind == "other":
            members = [
                r for r in sorted(endpoints) if r not in placed and not any(r in v for v in kinds.values())
            ]
        rng.shuffle(members)
        queues.append(members)
    order = list(head)
    while any(queues):
        for queue in queues:
            while queue:
                route_id = queue.pop(0)
                if route_id not in placed:
                    placed.add(route_id)
                    order.append(route_id)
                    break
    rest = [r for r in sorted(endpoints) if r not in placed]
    rng.shuffle(rest)
    return order + rest
