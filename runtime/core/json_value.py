"""The one name for a JSON value: what a JSON document, a tool's arguments or a world's record holds.

``JSONValue`` is exactly what ``json.loads`` returns (and ``json.dumps`` accepts): ``None``, ``bool``,
``int``, ``float``, ``str``, a list of JSON values, or an object of string keys to JSON values.
``JSONObject`` is the object case, the shape of tool arguments, records and a document's top level.
Use them where a value really is arbitrary JSON; where the shape is known, a TypedDict or a model
says more.
"""

from __future__ import annotations

from typing import TypeAlias

JSONScalar: TypeAlias = str | int | float | bool | None
JSONValue: TypeAlias = "JSONScalar | list[JSONValue] | dict[str, JSONValue]"
JSONObject: TypeAlias = "dict[str, JSONValue]"

__all__ = ["JSONObject", "JSONScalar", "JSONValue"]
