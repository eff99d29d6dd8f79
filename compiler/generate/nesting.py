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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from compiler.generate.endpoints import Provenance
from runtime.catalog.model import Endpoint

KINDS = (
    "destructive_lookalike",
    "deprecated_version",
    "near_duplicate_name",
    "same_output_other_inputs",
    "same_verb_other_domain",
)


@dataclass(frozen=True)
class _Plan:
    """What the distractor tests compare a route with: the plan's routes, bases, domains, verbs, declared
    near duplicates, and each plan route's (output semantic and unit) set and required input semantics."""

    ids: frozenset[str]
    bases: frozenset[str]
    domains: frozenset[str]
    verbs: frozenset[str]
    near: frozenset[str]
    io: tuple[tuple[frozenset[tuple[str, str | None]], frozenset[str]], ...]


def _outputs(e: Endpoint) -> frozenset[tuple[str, str | None]]:
    return frozenset((o.semantic_id, o.unit) for o in e.outputs)


def _needs(e: Endpoint) -> frozenset[str]:
    return frozenset(f.semantic_id for f in e.inputs if f.required)


def _plan_profile(
    endpoints: Mapping[str, Endpoint], provenance: Mapping[str, Provenance], plan: Iterable[str]
) -> _Plan:
    ids = frozenset(plan)
    return _Plan(
        ids=ids,
        bases=frozenset(provenance[r].base for r in ids),
        domains=frozenset(endpoints[r].domain for r in ids),
        verbs=frozenset(provenance[r].verb for r in ids),
        near=frozenset(n for r in ids if (n := provenance[r].near_duplicate_of) is not None),
        io=tuple((_outputs(endpoints[r]), _needs(endpoints[r])) for r in ids),
    )


def _destructive_lookalike(e: Endpoint, p: Provenance, plan: _Plan) -> bool:
    return e.side_effect == "destructive" and p.lookalike_of in plan.bases


def _deprecated_version(e: Endpoint, p: Provenance, plan: _Plan) -> bool:
    return p.origin == "deprecated" and p.variant_of in plan.ids


def _near_duplicate_name(e: Endpoint, p: Provenance, plan: _Plan) -> bool:
    beta = p.origin == "beta" and p.variant_of in plan.ids
    return beta or p.near_duplicate_of in plan.bases or p.base in plan.near


def _same_output_other_inputs(e: Endpoint, p: Provenance, plan: _Plan) -> bool:
    if p.variant_of in plan.ids:
        return False
    outputs, needs = _outputs(e), _needs(e)
    return any(outputs & outs and needs != ins for outs, ins in plan.io)


def _same_verb_other_domain(e: Endpoint, p: Provenance, plan: _Plan) -> bool:
    return p.verb in plan.verbs and e.domain not in plan.domains


# One test per kind, in KINDS order.
_TESTS: tuple[tuple[str, Callable[[Endpoint, Provenance, _Plan], bool]], ...] = (
    ("destructive_lookalike", _destructive_lookalike),
    ("deprecated_version", _deprecated_version),
    ("near_duplicate_name", _near_duplicate_name),
    ("same_output_other_inputs", _same_output_other_inputs),
    ("same_verb_other_domain", _same_verb_other_domain),
)


def distractor_kinds(
    endpoints: Mapping[str, Endpoint], provenance: Mapping[str, Provenance], plan: Iterable[str]
) -> dict[str, list[str]]:
    """Kind -> sorted routes (outside the plan) that are that kind of distractor for ``plan``."""
    profile = _plan_profile(endpoints, provenance, plan)
    kinds: dict[str, list[str]] = {k: [] for k in KINDS}
    for route_id in sorted(endpoints):
        if route_id in profile.ids:
            continue
        e, p = endpoints[route_id], provenance[route_id]
        for kind, test in _TESTS:
            if test(e, p, profile):
                kinds[kind].append(route_id)
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
