"""JSON Schema (as MCP, OpenAI tools and OpenAPI 3 use it) to typed fields.

An object schema's properties become ``FieldSpec``s: ``allOf`` is merged, a property's type is read
from ``type`` (a nullable ``[T, "null"]`` or ``anyOf``/``oneOf`` of one type and null is T), ``enum``
of strings is kept, and nested objects and arrays keep their JSON type. ``x-semantic-id``, ``x-unit``,
``x-dimension``, ``x-qualifier`` and ``x-stable-identifier`` on a property are read as given;
otherwise the semantic ID is derived (``naming.derived_semantic_id``) and marked so.

What this cannot represent is refused with an ``Unsupported`` naming the construct, which the
importer turns into one line naming the operation: a top-level schema that is not an object, an
``anyOf``/``oneOf`` of different types, a type this catalog has no name for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from runtime.catalog.importers.naming import derived_semantic_id, is_identifier_name
from runtime.catalog.model import FieldSpec, JsonType
from runtime.core.json_value import JSONValue

JSON_TYPES = ("string", "number", "integer", "boolean", "array", "object")
Resolve = Callable[[Any], Any]


class Unsupported(ValueError):
    """A construct the catalog model cannot hold; the message names it."""


class BrokenReference(Unsupported):
    """A ``$ref`` that points outside the document or nowhere: a defect of the document, not a
    construct the catalog cannot hold, so it is refused even without ``--strict`` (never skipped: a
    reference to another file is never followed, and a skip would hide that the document tried)."""


def _identity(node: Any) -> Any:
    return node


def object_properties(
    schema: JSONValue | Mapping[str, JSONValue], *, resolve: Resolve = _identity, what: str = "the schema"
) -> list[tuple[str, Mapping[str, JSONValue], bool]]:
    """(name, property schema, required) of an object schema, ``allOf`` merged, in source order."""
    top = _top_level(resolve(schema), what)
    props: dict[str, Mapping[str, Any]] = {}
    required: set[str] = set()
    for part in [top, *(resolve(p) for p in _all_of(top, what))]:
        if not isinstance(part, Mapping):
            raise Unsupported(f"{what} has an allOf member that is not a schema")
        if part is not top and "allOf" in part:
            _merge_nested(part, props, required, resolve, what)
        else:
            _merge_part(part, props, required, resolve, what)
    return [(name, prop, name in required) for name, prop in props.items()]


def _top_level(schema: Any, what: str) -> Mapping[str, Any]:
    """``schema`` as an object schema without a top-level ``oneOf``, ``anyOf`` or ``not``."""
    if not isinstance(schema, Mapping):
        raise Unsupported(f"{what} is not a JSON Schema object")
    for keyword in ("oneOf", "anyOf", "not"):
        if keyword in schema:
            raise Unsupported(f"{what} uses {keyword} at the top level")
    return schema


def _all_of(schema: Mapping[str, Any], what: str) -> list[Any]:
    """The members of the schema's ``allOf`` (none when it has none)."""
    members = schema.get("allOf") or []
    if not isinstance(members, list):
        raise Unsupported(f"{what} has an allOf that is not a list")
    return members


def _merge_nested(
    part: Mapping[str, Any],
    props: dict[str, Mapping[str, Any]],
    required: set[str],
    resolve: Resolve,
    what: str,
) -> None:
    """Merge an ``allOf`` member that has an ``allOf`` of its own (the first schema of a name wins)."""
    for name, prop, req in object_properties(part, resolve=resolve, what=what):
        props.setdefault(name, prop)
        if req:
            required.add(name)


def _merge_part(
    part: Mapping[str, Any],
    props: dict[str, Mapping[str, Any]],
    required: set[str],
    resolve: Resolve,
    what: str,
) -> None:
    """Merge one object schema's ``properties`` and ``required`` (the first schema of a name wins)."""
    kind = part.get("type")
    if kind not in (None, "object") and not (isinstance(kind, list) and "object" in kind):
        raise Unsupported(f"{what} is of type {kind!r}, not an object")
    properties = part.get("properties") or {}
    names = part.get("required") or []
    if not isinstance(properties, Mapping):
        raise Unsupported(f"{what} has 'properties' that are not an object")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise Unsupported(f"{what} has 'required' that is not a list of names")
    for name, raw in properties.items():
        props.setdefault(str(name), _property_schema(resolve(raw), name, what))
    required.update(names)


def _property_schema(prop: Any, name: object, what: str) -> Mapping[str, Any]:
    """A property's (resolved) schema; JSON Schema's ``true`` and ``false`` read as ``{}``."""
    if isinstance(prop, bool):  # JSON Schema's true (any value) / false
        return {}
    if not isinstance(prop, Mapping):
        raise Unsupported(f"{what}: property {name!r} is not a schema")
    return prop


def _branches(
    schema: Mapping[str, Any], keyword: str, resolve: Resolve, what: str
) -> list[Mapping[str, Any]]:
    raw = schema[keyword]
    if not isinstance(raw, list):
        raise Unsupported(f"{what} has a {keyword} that is not a list")
    out = []
    for branch in (resolve(b) for b in raw):
        if isinstance(branch, bool):
            continue
        if not isinstance(branch, Mapping):
            raise Unsupported(f"{what} has a {keyword} member that is not a schema")
        if branch.get("type") != "null":
            out.append(branch)
    return out


def json_type(schema: Mapping[str, JSONValue], *, resolve: Resolve = _identity, what: str) -> JsonType | None:
    """The JSON type of a property schema; None when the schema does not say (any value)."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        if len(kinds) != 1:
            raise Unsupported(f"{what} has several types {kind}")
        kind = kinds[0]
    if not isinstance(kind, str | None):
        raise Unsupported(f"{what} has type {kind!r}")
    if kind is None:
        for keyword in ("allOf", "anyOf", "oneOf"):
            if keyword in schema:
                branch_types = {
                    json_type(b, resolve=resolve, what=what)
                    for b in _branches(schema, keyword, resolve, what)
                }
                branch_types.discard(None)
                if len(branch_types) > 1:
                    raise Unsupported(f"{what} is a {keyword} of {', '.join(sorted(map(str, branch_types)))}")
                if branch_types:
                    return branch_types.pop()
        if "properties" in schema:
            return "object"
        if "items" in schema:
            return "array"
        if _string_enum(schema) is not None:
            return "string"
        return None
    if kind not in JSON_TYPES:
        raise Unsupported(f"{what} has type {kind!r}")
    return cast(JsonType, kind)


def field_spec(
    name: str,
    schema: Mapping[str, JSONValue],
    *,
    required: bool,
    domain: str,
    output: bool,
    resolve: Resolve = _identity,
    what: str,
    description: str | None = None,
) -> FieldSpec:
    """One typed field; attributes not read from the source are listed in ``derived``."""
    derived: list[str] = []
    kind = json_type(schema, resolve=resolve, what=what)
    if kind is None:
        kind = "string"
        derived.append("json_type")
    semantic_id = schema.get("x-semantic-id")
    if not isinstance(semantic_id, str) or not semantic_id:
        semantic_id = derived_semantic_id(domain, name)
        derived.append("semantic_id")
    stable = schema.get("x-stable-identifier")
    if output and not isinstance(stable, bool):
        stable = kind in ("string", "integer") and is_identifier_name(name)
        derived.append("stable_identifier")
    text = description or schema.get("description") or schema.get("title") or name.replace("_", " ")
    return FieldSpec(
        name=name,
        json_type=kind,
        semantic_id=semantic_id,
        unit=_text(schema.get("x-unit")),
        dimension=_text(schema.get("x-dimension")),
        qualifier=_text(schema.get("x-qualifier")),
        required=required,
        stable_identifier=bool(stable) if output else False,
        enum=_string_enum(schema),
        description=" ".join(str(text).split()),
        derived=tuple(sorted(derived)),
    )


def _string_enum(schema: Mapping[str, Any]) -> tuple[str, ...] | None:
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        return tuple(enum)
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
