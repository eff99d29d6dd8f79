"""The retriever's frozen parameters (spec/retriever.yaml) as a typed model.

The YAML is validated by spec/schema/retriever.schema.json first; this model is the runtime's own
reading of it, so the runtime never needs the compiler.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, model_validator

from runtime.core.errors import SchemaRouterError
from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONValue
from runtime.spec_model.compiled import CompiledSpec
from runtime.spec_model.conditions import ConditionLimitsSpec

LANGUAGES = ("en", "es", "de", "ko", "ja", "zh")

# Every part of an Endpoint that may be indexed. Endpoint.behavior is deliberately absent: the
# simulator's semantics are never indexed.
Source = Literal[
    "route_id",
    "name",
    "summary",
    "description",
    "summaries.en",
    "summaries.es",
    "summaries.de",
    "summaries.ko",
    "summaries.ja",
    "summaries.zh",
    "inputs.name",
    "outputs.name",
    "inputs.semantic_id",
    "outputs.semantic_id",
    "inputs.unit",
    "outputs.unit",
    "errors",
]


class StemmedWords(FrozenModel):
    """Words (Unicode alphanumeric runs), lower-cased, optionally ASCII-folded and stop-worded, stemmed."""

    kind: Literal["stemmed_words"] = Field(description="Analyzer kind.")
    language: Literal["english", "spanish", "german"] = Field(description="Snowball stemmer language.")
    stopwords: bool = Field(description="Drop the language's stop words (Tantivy's list).")
    ascii_fold: bool = Field(description="Fold accents to ASCII (über -> uber) before stemming.")


class CharNgrams(FrozenModel):
    """Character n-grams of each word, for scripts that do not separate words (or do so loosely)."""

    kind: Literal["char_ngram"] = Field(description="Analyzer kind.")
    min_gram: int = Field(ge=1, le=4, description="Shortest n-gram, in characters.")
    max_gram: int = Field(ge=1, le=4, description="Longest n-gram, in characters.")
    ascii_words_whole: bool = Field(
        description="Keep all-ASCII words (units, acronyms, JSON keys) whole instead of n-gramming them."
    )

    @model_validator(mode="after")
    def _ordered(self) -> CharNgrams:
        if self.min_gram > self.max_gram:
            raise ValueError(f"min_gram {self.min_gram} is greater than max_gram {self.max_gram}")
        return self


class Identifier(FrozenModel):
    """Dotted and snake_case identifiers kept whole, plus their parts."""

    kind: Literal["identifier"] = Field(description="Analyzer kind.")
    index_parts: bool = Field(description="Also emit the parts (geo.latitude -> geo, latitude).")


AnalyzerSpec = Annotated[StemmedWords | CharNgrams | Identifier, Field(discriminator="kind")]


class IndexedField(FrozenModel):
    """One Tantivy text field: which endpoint parts it holds, how they are analyzed, how much it weighs."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="Tantivy field name.")
    sources: tuple[Source, ...] = Field(min_length=1, description="Endpoint parts indexed in this field.")
    analyzer: str = Field(description="Name of an analyzer in `analyzers`.")
    boost: float = Field(gt=0, description="Multiplier on this field's BM25 term scores.")


class Depth(FrozenModel):
    """How many routes each retrieval call returns."""

    initial_k: int = Field(
        ge=1, description="Top-k of the original query at the start of every SR condition."
    )
    refresh_k: int = Field(ge=1, description="Top-k of each state-aware refresh.")
    progressive: int = Field(
        ge=1, description="Depth of the one original-query ranking that progressive widening walks (5 + 5x5)."
    )


class Determinism(FrozenModel):
    """How rankings are made identical across builds and processes."""

    segments: Literal[1] = Field(description="The index is one segment, so BM25 statistics are global.")
    tie_break: Literal["route_id"] = Field(description="Equal scores are ordered by route ID, ascending.")


class Selection(FrozenModel):
    """How the parameters were chosen and what they scored (static top-5 recall of original queries)."""

    criterion: str = Field(description="What the parameters were chosen on.")
    static_top5_route_recall: dict[str, float] = Field(
        description="Per catalog size: required routes in the original query's top 5 / required routes."
    )
    static_top5_task_coverage: dict[str, float] = Field(
        description="Per catalog size: tasks with every required route in the top 5 / tasks."
    )
    rationale: str = Field(description="Why these values; what else was tried.")


class StrategyChoice(FrozenModel):
    """Which registered retrieval strategy ranks, and its parameters (validated by the strategy)."""

    code: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="Registered strategy code.")
    params: dict[str, Any] = Field(default_factory=dict, description="The strategy's parameters.")
    rationale: str | None = Field(default=None, description="Why this strategy and these values.")


class RetrieverSpec(FrozenModel):
    """spec/retriever.yaml."""

    version: Literal[1] = Field(description="Format version of this spec file.")
    engine: Literal["tantivy"] = Field(description="The search library.")
    scoring: Literal["bm25"] = Field(description="Per-field BM25 (Tantivy's k1=1.2, b=0.75), summed.")
    max_token_bytes: int = Field(
        ge=8, le=255, description="Longer tokens are dropped, at index and query time."
    )
    analyzers: dict[str, AnalyzerSpec] = Field(description="Named analyzers.")
    fields: tuple[IndexedField, ...] = Field(min_length=1, description="Indexed fields, in query order.")
    depth: Depth = Field(description="Retrieval depths.")
    determinism: Determinism = Field(description="Determinism rules.")
    selection: Selection = Field(description="How the parameters were chosen.")
    strategy: StrategyChoice | None = Field(
        default=None, description="The retrieval strategy; absent means text_concat (0.14's)."
    )

    @model_validator(mode="after")
    def _consistent(self) -> RetrieverSpec:
        ids = [f.id for f in self.fields]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate field ids in {ids}")
        unknown = sorted({f.analyzer for f in self.fields} - set(self.analyzers))
        if unknown:
            raise ValueError(f"fields use undefined analyzers {unknown}")
        return self

    @classmethod
    def from_compiled(cls, compiled: CompiledSpec) -> RetrieverSpec:
        """From the compiled spec bundle, which carries every spec file's parsed data in ``raw``."""
        if "retriever" not in compiled.raw:
            raise SchemaRouterError("the compiled spec has no retriever section (spec/retriever.yaml)")
        return parse_retriever_spec(compiled.raw["retriever"])

    def conditions_drift(self, limits: ConditionLimitsSpec) -> list[str]:
        """Differences between these depths and spec/conditions.yaml's limits (empty if consistent)."""
        drift: list[str] = []
        if self.depth.initial_k != limits.initial_k:
            drift.append(f"retriever.depth.initial_k {self.depth.initial_k} != limits.initial_k")
        if self.depth.refresh_k != limits.max_k_per_refresh:
            drift.append(f"retriever.depth.refresh_k {self.depth.refresh_k} != limits.max_k_per_refresh")
        widest = limits.initial_k + limits.max_refresh_per_episode * limits.max_k_per_refresh
        if self.depth.progressive != widest:
            drift.append(f"retriever.depth.progressive {self.depth.progressive} != {widest} (5 + 5x5)")
        return drift


def parse_retriever_spec(
    raw: Mapping[str, JSONValue], *, origin: str = "spec/retriever.yaml"
) -> RetrieverSpec:
    """Validate parsed YAML; errors become one SchemaRouterError line per problem."""
    try:
        return RetrieverSpec.model_validate(raw)
    except ValidationError as err:
        lines = [
            f"{origin}: {'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
            for e in err.errors(include_url=False)
        ]
        raise SchemaRouterError("\n".join(lines)) from None
