"""The compiled form of spec/state_contract.yaml: what research retrieval may see, and what never."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from runtime.core.frozen_model import FrozenModel


class StateFieldType(FrozenModel):
    """The type of one state field."""

    kind: str = Field(
        description="The field's kind (runtime/state/kinds.py: set, optional, count, enum, optional_enum, "
        "boolean; checked by sr validate)."
    )
    items: str | None = Field(default=None, description="set/optional: what the elements are, e.g. route_id.")
    values: tuple[str, ...] | None = Field(
        default=None, description="enum/optional_enum: the allowed values (values_from resolved at compile)."
    )
    values_from: str | None = Field(
        default=None, description="optional_enum: the contract list the values came from, e.g. error_classes."
    )


class QueryItemSpec(FrozenModel):
    """The original query: allowed, but beside the state JSON, never inside it."""

    name: Literal["original_query"] = Field(description="Always original_query.")
    type: Literal["string"] = Field(description="Always string.")
    description: str = Field(description="What the item is.")


class StateFieldSpec(FrozenModel):
    """One allowed state field."""

    name: str = Field(description="Field name in the state JSON.")
    type: StateFieldType = Field(description="Its kind.")
    source: str = Field(
        description="The typed fact it is derived from (runtime/state/sources.py); a field of a contract "
        "written before sources were named takes the one its name implies, resolved at compile."
    )
    description: str = Field(description="What it holds and how it is derived.")


class ForbiddenItemSpec(FrozenModel):
    """One item research retrieval may never see, with the key names that would smuggle it."""

    id: str = Field(description="Stable id of the forbidden item.")
    description: str = Field(description="What it is.")
    aliases: tuple[str, ...] = Field(description="Key names under which it would be carried.")


class SerializationSpec(FrozenModel):
    """How state becomes text for research retrieval."""

    format: Literal["JCS"] = Field(description="JSON Canonicalization Scheme.")
    standard: Literal["RFC 8785"] = Field(description="The standard.")
    sorted_keys: Literal[True] = Field(description="Keys sorted.")
    whitespace: Literal["none"] = Field(description="No insignificant whitespace.")
    encoding: Literal["utf-8"] = Field(description="Text encoding.")
    joiner: str = Field(description="Between the original query and the state JSON.")
    applies_to: tuple[str, ...] = Field(description="Conditions whose research retrieval carries state.")
    rationale: str | None = Field(default=None, description="Why.")


class StateContractSpec(FrozenModel):
    """The frozen state contract."""

    version: int = Field(description="Contract version.")
    query: QueryItemSpec = Field(description="The original query (the tenth allowed item).")
    allowed: tuple[StateFieldSpec, ...] = Field(description="The state fields, in the contract's order.")
    identifier_pattern: str = Field(description="Regex every stable identifier value must match.")
    error_classes: tuple[str, ...] = Field(description="Typed error classes.")
    forbidden: tuple[ForbiddenItemSpec, ...] = Field(description="The seven forbidden items.")
    serialization: SerializationSpec = Field(description="Canonical state JSON.")
    free_text_in_retrieval: Literal["never"] = Field(
        description="Free-text tool output never reaches retrieval."
    )

    @property
    def allowed_names(self) -> tuple[str, ...]:
        """Names of the allowed state fields, in spec order."""
        return tuple(f.name for f in self.allowed)

    @property
    def forbidden_names(self) -> frozenset[str]:
        """Every forbidden id and alias."""
        return frozenset(name for item in self.forbidden for name in (item.id, *item.aliases))
