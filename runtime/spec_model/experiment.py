"""The compiled form of spec/experiment.yaml."""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from pydantic import Field

from runtime.core.frozen_model import FrozenModel


class SeedDocument(FrozenModel):
    """One document of the seed (the preregistration) the spec encodes."""

    path: str = Field(description="File name of the seed document.")
    role: Literal["original", "rendering"] = Field(
        description="original stands; a rendering is informative only."
    )
    sha256: str = Field(description="sha256 of the document's bytes.")


class ProvenanceSpec(FrozenModel):
    """Where the experiment comes from."""

    seed_documents: tuple[SeedDocument, ...] = Field(description="The seed documents.")
    prior_experiment: str = Field(description="The prior experiment, e.g. '#423 B2 (terminal)'.")
    admitted_via: str = Field(description="How the experiment was admitted, e.g. '#500 automated conveyor'.")
    frozen_scientific_source: str = Field(
        description="Commit of the frozen scientific source the seed names."
    )
    rationale: str | None = Field(default=None, description="Why the spec is frozen as a preregistration.")


class LanguageSpec(FrozenModel):
    """One of the six languages of the surface."""

    code: str = Field(description="ISO 639 code, e.g. en, ko.")
    name: str = Field(description="English name of the language.")
    script: str = Field(description="Writing system, e.g. Latin, Hangul.")
    analyzer: str = Field(description="Retrieval text analyzer for this language, e.g. stem_en, cjk_ngram.")


class BootstrapSpec(FrozenModel):
    """The primary interval: a stratified task-cluster bootstrap."""

    method: Literal["stratified_task_cluster"] = Field(description="Resampling scheme.")
    cluster: Literal["task"] = Field(description="The resampled unit.")
    strata: tuple[str, ...] = Field(description="Stratification keys; resampling happens within each cell.")
    iterations: int = Field(description="Bootstrap resamples (10,000).")
    seed: int = Field(description="Seed of the bootstrap's generator (20260929).")
    rng: str = Field(description="The generator, e.g. numpy.random.Generator(PCG64).")
    interval: Literal["percentile"] = Field(description="Interval construction.")
    confidence: float = Field(description="Interval confidence (0.95).")
    paired: bool = Field(description="One resample serves every condition and catalog size.")
    rationale: str | None = Field(default=None, description="Why the bootstrap is built this way.")

    def percentiles(self) -> tuple[float, float]:
        """(2.5, 97.5) for 0.95, computed exactly so the interpolation points carry no float noise."""
        tail = (Decimal(1) - Decimal(str(self.confidence))) / 2 * 100
        return float(tail), float(Decimal(100) - tail)


class ExperimentSpec(FrozenModel):
    """The experiment's identity, provenance, surface dimensions, named seeds and bootstrap."""

    id: str = Field(description="Experiment id, e.g. '0.14'.")
    title: str = Field(description="The seed's title.")
    tracking_issue: str = Field(description="Tracking issue, e.g. '#431'.")
    provenance: ProvenanceSpec = Field(description="Where the experiment comes from.")
    catalog_sizes: tuple[int, ...] = Field(description="Catalog sizes in endpoints (100, 250, 500).")
    languages_rationale: str | None = Field(default=None, description="Why these six languages.")
    languages: tuple[LanguageSpec, ...] = Field(description="The six languages of the surface.")
    seeds: dict[str, int] = Field(description="Named seeds; every random draw derives from one of them.")
    bootstrap: BootstrapSpec = Field(description="The primary interval's bootstrap.")
