"""Argument checks every execution starts with: unknown or missing arguments and JSON types."""

from __future__ import annotations

from collections.abc import Mapping

from runtime.catalog.model import Endpoint
from runtime.core.json_value import JSONValue

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
}


def argument_error(
    endpoint: Endpoint, arguments: Mapping[str, JSONValue] | JSONValue
) -> tuple[str, str] | None:
    """``(error_class, detail)`` for the first schema violation, or None when the arguments fit."""
    if not isinstance(arguments, Mapping):
        return "INVALID_TYPE", "arguments must be a JSON object"
    fields = {f.name: f for f in endpoint.inputs}
    for name in sorted(arguments):
        if name not in fields:
            return "INVALID_TYPE", f"unexpected argument '{name}'"
    for f in endpoint.inputs:
        if f.name not in arguments:
            if f.required:
                return "MISSING_INPUT", f"missing required argument '{f.name}'"
            continue
        value = arguments[f.name]
        if (isinstance(value, bool) and f.json_type != "boolean") or not isinstance(
            value, _JSON_TYPES[f.json_type]
        ):
            return "INVALID_TYPE", f"argument '{f.name}' must be of type {f.json_type}"
        if f.json_type == "integer" and isinstance(value, float):
            return "INVALID_TYPE", f"argument '{f.name}' must be an integer"
        if f.enum and value not in f.enum:
            return "INVALID_TYPE", f"argument '{f.name}' must be one of {', '.join(f.enum)}"
    return None
