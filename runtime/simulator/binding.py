"""Argument binding shared by the gold-plan executor and the reference agent.

The rule, for each input of the endpoint in catalog order:

1. if the step's literal arguments (values the user stated in the query) name it, take that value;
2. else take the value of the most recent *ok* observation's output field that has the same
   ``semantic_id`` and, when the input declares a unit, the same unit; within one observation the first
   such field in catalog order wins. Stable identifiers are carried verbatim (every value is);
3. else leave the input out (the call then fails with MISSING_INPUT if it was required).

Literal arguments that name no input of the endpoint are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from runtime.catalog.model import Endpoint, FieldSpec
from runtime.core.json_value import JSONObject, JSONValue
from runtime.simulator.result import ObservedField, ToolResult


def _matches(spec: FieldSpec, observed: ObservedField) -> bool:
    if observed.semantic_id != spec.semantic_id or observed.value is None:
        return False
    return spec.unit is None or observed.unit == spec.unit


def bind_arguments(
    endpoint: Endpoint, literal_args: Mapping[str, JSONValue], observations: Sequence[ToolResult]
) -> JSONObject:
    """The arguments for one call of ``endpoint`` by the rule above."""
    args: JSONObject = {}
    for spec in endpoint.inputs:
        if spec.name in literal_args:
            args[spec.name] = literal_args[spec.name]
            continue
        for result in reversed(observations):
            if result.status != "ok":
                continue
            hit = next((f for f in result.fields if _matches(spec, f)), None)
            if hit is not None:
                args[spec.name] = hit.value
                break
    return args
