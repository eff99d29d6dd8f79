"""Scaled synthetic catalogs for ``sr bench retrieval``: many endpoints, deterministically, from real ones.

Endpoint ``i`` is a templated variant of real endpoint ``i mod n``: a new route ID, and its summary,
description and localized summaries extended with a variant phrase (a region, an edition and a
tenant code), so the vocabulary and posting lists grow with the catalog instead of merely repeating.
Only for measuring speed; never used in the experiment.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from runtime.catalog.model import Endpoint

_REGIONS = ("eu", "us", "apac", "latam", "mena", "nordics", "iberia", "dach", "anz", "india")
_EDITIONS = ("standard", "enterprise", "legacy", "batch", "express", "sandbox", "partner", "archive")


def scaled_endpoints(real: Sequence[Endpoint], n: int, *, seed: int) -> list[Endpoint]:
    """``n`` endpoints: the real ones first, then variants; the same for the same inputs."""
    if not real:
        return []
    base = sorted(real, key=lambda e: e.route_id)
    rng = random.Random(f"sr-bench-synthetic:{seed}:{n}")
    out = list(base[:n])
    for i in range(len(out), n):
        source = base[i % len(base)]
        variant = i // len(base)
        region, edition = rng.choice(_REGIONS), rng.choice(_EDITIONS)
        tenant = f"t{rng.randrange(10_000):04d}"
        phrase = f"{region} {edition} {tenant}"
        out.append(
            source.model_copy(
                update={
                    "route_id": f"{source.route_id}.x{variant:05d}",
                    "name": f"{source.name[:50]}_x{variant:05d}",
                    "summary": f"{source.summary} ({phrase})",
                    "description": f"{source.description} Variant for {phrase}.".strip(),
                    "summaries": {lang: f"{text} ({phrase})" for lang, text in source.summaries.items()},
                }
            )
        )
    return out
