"""The typed endpoint model shared by the generator, the simulator, the retriever and the engine.

A catalog file is JSON: ``{"catalog_version": 1, "size": N, "endpoints": [Endpoint, ...]}`` sorted by
``route_id``. The retriever indexes only the sources its spec names (runtime/retrieval/document.py),
and only ``Endpoint.tool_schema()`` reaches a model. ``behavior`` is simulator-only.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import Field

from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONObject

JsonType = Literal["string", "number", "integer", "boolean", "array", "object"]
SideEffect = Literal["read", "write", "destructive"]

# The grammars of a catalog's names (ASCII only). The generator's catalogs keep them by construction; an
# importer refuses a source's name outside them (runtime/catalog/importers/identifiers.py).
ROUTE_ID = re.compile(r"^[a-z0-9][a-z0-9_]*(?:\.[a-z0-9][a-z0-9_]*)+$", re.ASCII)
ROUTE_ID_MAX = 128
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$", re.ASCII)
DOMAIN = re.compile(r"^[a-z0-9][a-z0-9_]{0,63}$", re.ASCII)
FIELD_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$", re.ASCII)
SEMANTIC_ID = re.compile(r"^[a-z0-9][a-z0-9_]*(?:\.[a-z0-9][a-z0-9_]*)+$", re.ASCII)


class FieldSpec(FrozenModel):
    """One typed input or output field of an endpoint."""

    name: str = Field(description="Field name as it appears in arguments or results (snake_case).")
    json_type: JsonType = Field(description="JSON type of the value.")
    semantic_id: str = Field(description="Dotted semantic ID, e.g. geo.latitude or commerce.order_id.")
    unit: str | None = Field(default=None, description="Unit symbol, e.g. degC, km, kg, EUR.")
    dimension: str | None = Field(
        default=None, description="Physical or economic dimension (temperature, ...)."
    )
    qualifier: str | None = Field(default=None, description="Qualifier of the quantity, e.g. daily_max.")
    required: bool = Field(default=True, description="Inputs: whether the argument is required.")
    stable_identifier: bool = Field(
        default=False, description="Outputs: whether the value is a stable identifier to carry verbatim."
    )
    enum: tuple[str, ...] | None = Field(default=None, description="Allowed string values, if closed.")
    description: str = Field(description="English description shown to the model.")
    derived: tuple[str, ...] = Field(
        default=(),
        description="Imported catalogs: the attributes an importer derived (e.g. semantic_id) instead of "
        "reading them from the source. Omitted from the file when empty.",
    )


class Endpoint(FrozenModel):
    """One registered route of a catalog."""

    route_id: str = Field(description="Stable registered route ID, e.g. weather.forecast.daily.v2.")
    name: str = Field(description="Tool name shown to the model; matches ^[A-Za-z0-9_-]{1,64}$.")
    domain: str = Field(description="Domain, e.g. weather, commerce.")
    summary: str = Field(description="One-line English summary.")
    description: str = Field(description="English description.")
    summaries: dict[str, str] = Field(description="Localized one-line summary per language code.")
    inputs: tuple[FieldSpec, ...] = Field(description="Typed input fields.")
    outputs: tuple[FieldSpec, ...] = Field(description="Typed output fields.")
    side_effect: SideEffect = Field(description="read, write or destructive.")
    errors: tuple[str, ...] = Field(description="Typed error classes the endpoint documents.")
    deprecated: bool = Field(default=False, description="Whether the route is a deprecated version.")
    behavior: dict[str, Any] = Field(
        default_factory=dict,
        description="Simulator semantics. Never rendered to the model and never indexed.",
    )
    derived: tuple[str, ...] = Field(
        default=(),
        description="Imported catalogs: the attributes an importer derived (e.g. route_id, side_effect) "
        "instead of reading them from the source. Omitted from the file when empty.",
    )

    def tool_schema(self) -> JSONObject:
        """The OpenAI function / MCP tool shape a model is shown. Token counts are taken on this."""
        properties: JSONObject = {}
        for f in self.inputs:
            prop: JSONObject = {"type": f.json_type, "description": _field_description(f)}
            if f.enum:
                prop["enum"] = list(f.enum)
            properties[f.name] = prop
        summary = self.summary.rstrip(".")
        description = f"{summary}." if not self.description else f"{summary}. {self.description}"
        if self.deprecated:
            description = f"[DEPRECATED] {description}"
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": description,
                "parameters": {
                    "type": "object",
                    "properties": properties,
                    "required": [f.name for f in self.inputs if f.required],
                    "additionalProperties": False,
                },
            },
        }

    def tool_schema_json(self) -> str:
        """The rendered schema as compact, key-sorted JSON: the exact text that is counted."""
        return json.dumps(self.tool_schema(), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _field_description(f: FieldSpec) -> str:
    extras = [f.semantic_id]
    if f.unit:
        extras.append(f"unit {f.unit}")
    return f"{f.description} ({', '.join(extras)})"


class CatalogSource(FrozenModel):
    """Where an imported catalog came from (``sr catalog import``)."""

    format: str = Field(description="The importer's stable code: mcp, openai or openapi.")
    file: str = Field(description="The source file's name (without its directory).")
    sha256: str = Field(description="sha256: and the hex sha256 of the source file's bytes.")
    title: str | None = Field(default=None, description="The source's own title, if it has one.")
    version: str | None = Field(default=None, description="The source's own version, if it has one.")


class Catalog(FrozenModel):
    """A catalog of a given size; endpoints sorted by route_id."""

    catalog_version: int = Field(default=1, description="Catalog file format version.")
    size: int = Field(description="Number of endpoints (generated catalogs: 100, 250 or 500).")
    endpoints: tuple[Endpoint, ...] = Field(description="Endpoints sorted by route_id.")
    source: CatalogSource | None = Field(
        default=None, description="Imported catalogs only: the source. Omitted from the file when null."
    )

    def by_route(self) -> dict[str, Endpoint]:
        return {e.route_id: e for e in self.endpoints}

    def by_name(self) -> dict[str, Endpoint]:
        return {e.name: e for e in self.endpoints}
