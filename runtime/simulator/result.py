"""The typed result of one executed call.

The typed parts (``status``, ``error_class``, ``fields``) are what ObservableState may be built from.
``message`` is free text: shown to the model in the history, never to the retriever.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from runtime.catalog.model import FieldSpec, JsonType, SideEffect
from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONObject, JSONValue


class ObservedField(FrozenModel):
    """One typed output value, with the field's declared typing from the catalog."""

    name: str = Field(description="Output field name.")
    semantic_id: str = Field(description="Semantic ID of the output field.")
    json_type: JsonType = Field(description="Declared JSON type.")
    unit: str | None = Field(default=None, description="Unit symbol, if any.")
    dimension: str | None = Field(default=None, description="Dimension, if any.")
    qualifier: str | None = Field(default=None, description="Qualifier, if any.")
    stable_identifier: bool = Field(default=False, description="Whether the value is a stable identifier.")
    value: Any = Field(description="The value (JSON-compatible).")

    @classmethod
    def of(cls, spec: FieldSpec, value: JSONValue) -> ObservedField:
        """The observation of ``value`` for the catalog output field ``spec``, with its declared typing."""
        return cls(
            name=spec.name,
            semantic_id=spec.semantic_id,
            json_type=spec.json_type,
            unit=spec.unit,
            dimension=spec.dimension,
            qualifier=spec.qualifier,
            stable_identifier=spec.stable_identifier,
            value=value,
        )


class ToolResult(FrozenModel):
    """What the simulator returns for one executed call."""

    route_id: str = Field(description="The executed route.")
    status: Literal["ok", "error"] = Field(description="ok or error.")
    error_class: str | None = Field(default=None, description="Typed error class when status is error.")
    fields: tuple[ObservedField, ...] = Field(
        default=(), description="Typed output values, in catalog order."
    )
    message: str | None = Field(
        default=None, description="Free text (may hold planted instructions). Never reaches retrieval."
    )
    side_effect: SideEffect | None = Field(
        default=None, description="The executed route's side-effect class, stamped by the simulator."
    )

    def model_view(self) -> JSONObject:
        """What the model sees in the history: values by field name, status, error and message."""
        view: JSONObject = {"status": self.status}
        if self.error_class:
            view["error"] = self.error_class
        for f in self.fields:
            view[f.name] = f.value
        if self.message is not None:
            view["message"] = self.message
        return view
