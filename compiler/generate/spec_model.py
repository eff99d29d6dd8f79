"""Typed views of the generator's spec files (raw shapes; validated by their JSON Schemas first).

spec/fields.yaml -> ``FieldDef``, ``ResourceDef``; spec/endpoints.yaml -> ``EndpointDef``;
spec/pools.yaml -> ``PoolDef``; spec/intents.yaml -> ``IntentDef``; spec/generator.yaml ->
``GeneratorDef``. Nothing here decides anything; the builders do.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from runtime.core.frozen_model import FrozenModel

Localized = dict[str, str]


class _Raw(FrozenModel):
    model_config = ConfigDict(populate_by_name=True)


class FieldDef(_Raw):
    name: str | None = Field(default=None, description="Field name (default: the key).")
    type: Literal["string", "number", "integer", "boolean", "array", "object"] = Field(
        description="JSON type."
    )
    semantic: str = Field(description="Semantic ID.")
    unit: str | None = Field(default=None, description="Unit symbol.")
    dimension: str | None = Field(default=None, description="Dimension.")
    qualifier: str | None = Field(default=None, description="Qualifier.")
    id: bool = Field(default=False, description="Stable identifier.")
    enum: tuple[Any, ...] | None = Field(default=None, description="Closed values.")
    description: str = Field(description="English description.")
    gen: dict[str, Any] | None = Field(default=None, description="How the world builder invents a value.")


class ResourceDef(_Raw):
    domain: str = Field(description="Domain of the generated routes.")
    path: str = Field(description="Route segment of the generated routes.")
    id_field: str = Field(description="Primary-key field key.")
    fields: tuple[str, ...] = Field(description="Record field keys.")
    status_field: str | None = Field(default=None, description="Field archive/restore set.")
    search_field: str | None = Field(default=None, description="Field search matches.")
    crud: tuple[str, ...] = Field(description="Generic verbs to generate.")
    nouns: dict[str, tuple[str, str]] = Field(description="Language -> (singular, plural).")


class EndpointDef(_Raw):
    route: str = Field(description="Route ID without version.")
    version: int | None = Field(default=None, description="Version (default from generator.yaml).")
    role: Literal["core", "distractor"] = Field(default="distractor", description="core may be planned.")
    effect: Literal["read", "write", "destructive"] = Field(default="read", description="Side effect.")
    in_: tuple[str, ...] = Field(alias="in", description="Input field keys; trailing ? = optional.")
    out: tuple[str, ...] = Field(description="Output field keys.")
    op: dict[str, Any] = Field(description="Simulator behavior.")
    summary: Localized = Field(description="Summary per language.")
    description: str | None = Field(default=None, description="Extra English description.")
    lookalike_of: str | None = Field(default=None, description="Safe route this is mistaken for.")
    near_duplicate_of: str | None = Field(default=None, description="Route with a near-identical name.")


class EndpointsFile(_Raw):
    domains: dict[str, str] = Field(description="Domain -> what it covers.")
    realms: dict[str, tuple[str, ...]] = Field(description="Auth realm -> domains in it.")
    endpoints: tuple[EndpointDef, ...] = Field(description="Handwritten endpoints.")


class PoolValue(_Raw):
    text: str = Field(description="Text in the query.")
    value: Any = Field(default=None, description="Literal argument (default: text).")
    facts: dict[str, Any] = Field(default_factory=dict, description="Record fields the world stores.")


class PoolChoice(_Raw):
    value: Any = Field(description="Literal argument.")
    text: Localized = Field(description="Text per language.")


class PoolDef(_Raw):
    semantic: str = Field(description="Semantic ID the pool's values satisfy.")
    values: dict[str, tuple[PoolValue | str, ...]] | None = Field(default=None, description="Per language.")
    choices: tuple[PoolChoice, ...] | None = Field(default=None, description="Closed values.")
    generate: dict[str, Any] | None = Field(default=None, description="Generated values.")


class SlotDef(_Raw):
    pool: str = Field(description="Pool name.")
    semantic: str | None = Field(default=None, description="Semantic override.")


class FailureDef(_Raw):
    error: str = Field(description="Error class the goal meets first.")
    stale_slot: str | None = Field(default=None, description="Slot holding the stale identifier.")


class IntentDef(_Raw):
    id: str = Field(description="Intent ID.")
    stratum: str = Field(description="Stratum ID.")
    goal: str = Field(description="Goal route (without version).")
    slots: dict[str, str | SlotDef] = Field(description="Slot name -> pool.")
    answer: tuple[str, ...] | None = Field(default=None, description="Goal outputs of the answer.")
    failure: FailureDef | None = Field(default=None, description="Recoverable failure.")
    phrasings: dict[str, tuple[str, ...]] = Field(description="Language -> phrasings.")


class VariantDef(_Raw):
    summary_prefix: Localized = Field(description="Prefix per language.")
    notice: str = Field(description="Message on ok results.")


class CatalogDef(_Raw):
    largest: int = Field(description="Size of the full catalog.")
    variants: dict[str, VariantDef] = Field(description="deprecated and beta.")
    deprecated_share: float = Field(description="Share of variants that are deprecated versions.")
    interleave: tuple[str, ...] = Field(description="Distractor kinds in nesting order.")
    effect_sentences: dict[str, str] = Field(description="Sentence per side effect.")
    realm_sentence: str = Field(description="Sentence for realm routes.")


class VerbDef(_Raw):
    effect: Literal["read", "write", "destructive"] = Field(description="Side effect.")
    summary: Localized = Field(description="Template per language.")
    description: str = Field(description="English template.")


class DateFormat(_Raw):
    format: str = Field(description="Template.")
    months: tuple[str, ...] | None = Field(default=None, description="Month names.")


class WorldDef(_Raw):
    fx_rates: dict[str, str] = Field(description="Units per USD.")
    fx_jitter_pct: float = Field(description="Seeded jitter of rates, percent.")
    noise_records: tuple[int, int] = Field(description="Extra records per primed one.")
    rate_limited_routes: int = Field(description="Distractor routes rate-limited per world.")
    realms: tuple[str, ...] = Field(description="Realms with sessions.")


class SurfaceDef(_Raw):
    injected_tasks_per_cell: int = Field(description="Tasks per cell with planted text.")
    injections: tuple[str, ...] = Field(description="Planted text templates.")


class GeneratorDef(_Raw):
    today: str = Field(description="The worlds' date.")
    default_version: int = Field(description="Default route version.")
    catalog: CatalogDef = Field(description="Catalog settings.")
    crud_verbs: dict[str, VerbDef] = Field(description="Generic verbs.")
    dates: dict[str, DateFormat] = Field(description="Date rendering per language.")
    times: Localized = Field(description="Time rendering per language.")
    world: WorldDef = Field(description="World settings.")
    surface: SurfaceDef = Field(description="Surface settings.")
    scalar_reading: str | None = Field(
        default=None,
        description="How generation reads plain scalars: absent or yaml-1.1-booleans (the known defect "
        "of experiments generated before the field existed), "
        "or yaml-1.2-core.",
    )
