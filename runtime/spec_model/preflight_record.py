"""The preflight a freeze ran (``sr preflight``, run by ``sr freeze``), as the lock keeps it.

An optional field of the lock (``preflight``), omitted from the file when absent, so every lock written
before it existed keeps its bytes and its ``lock_digest``. It records the table the freeze saw: per
gate criterion and catalog size the development-surface estimate, the bound the protocol sets, the
minimum detectable difference and the verdict; and, when a criterion was unreachable, the reason the
owner gave for freezing anyway (``sr freeze --accept-infeasible "..."``). Pilot outcomes only: never
a figure of the evaluation surface.
"""

from __future__ import annotations

from pydantic import Field

from runtime.core.frozen_model import FrozenModel


class PreflightCriterion(FrozenModel):
    """One gate criterion at one catalog size, as the preflight measured it on the pilot surface."""

    code: str = Field(description="Gate criterion code (G1..).")
    catalog: int = Field(description="Catalog size.")
    metric: str = Field(description="Metric ID.")
    test: str = Field(description="The criterion's test, e.g. 'ci_low >= 0.97'.")
    point: float | None = Field(description="Pilot estimate of the compared quantity (null: undefined).")
    ci_low: float | None = Field(description="Its interval's lower bound (the gate's bootstrap).")
    ci_high: float | None = Field(description="Its interval's upper bound.")
    bound: float | None = Field(description="The protocol's bound on the compared quantity (null: none).")
    bound_basis: str | None = Field(description="How the bound was obtained, in words.")
    mdd: float | None = Field(
        description="Difference criteria: the true difference at which the statistic passes in 80% of "
        "simulated surfaces (null: not a difference criterion, or undefined)."
    )
    verdict: str = Field(description="reachable, unreachable or underpowered.")
    detail: str = Field(description="Why, e.g. 'bound 0.62 < 0.97'; empty when reachable.")


class PreflightRecord(FrozenModel):
    """The preflight of the latest freeze."""

    surface: str = Field(description="The pilot surface it ran on (never the evaluation surface).")
    surface_sha256: str = Field(description="sha256 of that surface file's bytes.")
    run_id: str = Field(description="The pilot run it measured (under runs/).")
    simulations: int = Field(description="Simulated surfaces per MDD.")
    simulation_seed: int = Field(description="The named seed preflight.simulation.")
    criteria: tuple[PreflightCriterion, ...] = Field(description="Every criterion x catalog size.")
    verdicts: dict[str, str] = Field(description="Each criterion's verdict over its catalog sizes.")
    accepted_infeasible: str | None = Field(
        description="The reason given with --accept-infeasible (null: every criterion was reachable)."
    )
