"""``openapi``: an OpenAPI 3.0 or 3.1 document (JSON or YAML), one endpoint per operation.

In order:

1. the document must declare ``openapi: 3.x``;
2. every ``$ref`` must resolve within the document (``refs.py``); a dangling one is reported at the
   operation (or component) holding it;
3. every operationId must be unique;
4. the document is validated by ``openapi-spec-validator`` (the maintained validator of the OpenAPI
   schemas); each error is one line at the operation its path lies in;
5. each operation becomes an endpoint: the name is the operationId (derived from the method and path
   without one), the domain is ``x-domain``, else the first tag, else the first path segment; inputs
   are the path, query and header parameters (path-level ones merged) and the request body's object
   properties (``allOf`` merged); outputs are the properties of the lowest 2xx response's JSON body
   (of its items, for an array of objects); errors are the 4xx/5xx responses (``x-error-class``, else
   ``HTTP_<code>``); the side effect is derived from the method (GET, HEAD, OPTIONS, TRACE: read;
   POST, PUT, PATCH: write; DELETE: destructive) unless ``x-side-effect`` says it; ``x-route-id`` names
   the route, else it is derived.

A binary request body becomes one ``string`` input ``body`` (base64), an array body one ``array``
input ``body``; a body property named like a parameter becomes ``body_<name>``.

Skipped (refused with ``strict``) with one line naming the operation and the construct: cookie
parameters, a parameter given by ``content``, a request body with no JSON, form or binary media type,
a body property named like a parameter when ``body_<name>`` is taken too, and whatever
``schema_fields`` refuses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from runtime.catalog.importers.assemble import Draft, catalog_of, endpoint_of
from runtime.catalog.importers.identifiers import IdentifierProblem, check_unicode, label
from runtime.catalog.importers.naming import TOOL_NAME, derived_tool_name, snake
from runtime.catalog.importers.options import ImportOptions
from runtime.catalog.importers.problems import ImportProblem, dependency_missing
from runtime.catalog.importers.refs import Path, RefResolver, find_dangling
from runtime.catalog.importers.registry import register_importer
from runtime.catalog.importers.schema_fields import (
    BrokenReference,
    Unsupported,
    field_spec,
    object_properties,
)
from runtime.catalog.importers.source import SourceFile
from runtime.catalog.model import Catalog, Endpoint, FieldSpec, SideEffect
from runtime.core import limits

METHODS: dict[str, SideEffect] = {
    "get": "read",
    "put": "write",
    "post": "write",
    "delete": "destructive",
    "options": "read",
    "head": "read",
    "patch": "write",
    "trace": "read",
}
_BODY_TYPES = ("application/json", "application/x-www-form-urlencoded", "multipart/form-data")


@register_importer("openapi")
class OpenApiImporter:
    code: ClassVar[str]

    def import_catalog(self, source: SourceFile, options: ImportOptions) -> Catalog:
        doc = source.data
        version = doc.get("openapi") if isinstance(doc, Mapping) else None
        if not isinstance(version, str) or not version.startswith("3."):
            found = (
                f"swagger {doc.get('swagger')}"
                if isinstance(doc, Mapping) and "swagger" in doc
                else (f"openapi {version!r}" if version is not None else "no openapi field")
            )
            raise ImportProblem(
                source.shown, "(document)", f"only OpenAPI 3 documents are supported ({found})"
            )
        operations = list(_operations(doc))
        if len(operations) > limits.OPERATIONS_PER_DOCUMENT:
            count = limits.over_limit("operations", len(operations), "OPERATIONS_PER_DOCUMENT")
            raise ImportProblem(source.shown, "(document)", count, source.position(("paths",)))
        resolve = RefResolver(doc)
        dangling = find_dangling(doc, resolve)
        if dangling:
            raise _problems(source, doc, dangling)
        _check_unique_operation_ids(source, operations)
        _validate(source, doc, version)
        pairs: list[tuple[str, Endpoint]] = []
        for path, method, item, op in operations:
            where = _where(method, path, op)
            try:
                draft = _draft(path, method, item, op, resolve, options, where)
            except IdentifierProblem as err:
                at = source.position(("paths", path, method))
                raise ImportProblem(source.shown, where, str(err), at) from None
            except Unsupported as err:
                if options.strict or isinstance(err, BrokenReference):
                    raise ImportProblem(source.shown, where, str(err)) from None
                options.skip(where, str(err))
                continue
            pairs.append((where, endpoint_of(draft, source)))
        info = doc.get("info") if isinstance(doc.get("info"), Mapping) else {}
        return catalog_of(pairs, source, self.code, title=info.get("title"), version=info.get("version"))


def _operations(doc: Mapping[str, Any]) -> list[tuple[str, str, Mapping[str, Any], Mapping[str, Any]]]:
    out = []
    paths = doc.get("paths") or {}
    if isinstance(paths, Mapping):
        for path, item in paths.items():
            if not isinstance(item, Mapping):
                continue
            for method, op in item.items():
                if method in METHODS and isinstance(op, Mapping):
                    out.append((str(path), str(method), item, op))
    return out


def _where(method: str, path: str, op: Mapping[str, Any]) -> str:
    op_id = op.get("operationId")
    return f"{method.upper()} {label(path)}" + (f" ({label(op_id)})" if isinstance(op_id, str) else "")


def _where_of(doc: Mapping[str, Any], path: Path) -> str:
    """The operation (``GET /pets (listPets)``) or component a document path lies in."""
    if len(path) >= 3 and path[0] == "paths" and str(path[2]) in METHODS:
        op = doc["paths"][path[1]][path[2]]
        return _where(str(path[2]), str(path[1]), op if isinstance(op, Mapping) else {})
    if len(path) >= 2 and path[0] == "paths":
        return f"path {path[1]}"
    return ".".join(str(p) for p in path[:3]) or "(document)"


def _problems(source: SourceFile, doc: Mapping[str, Any], found: list[tuple[Path, str]]) -> ImportProblem:
    lines = []
    for path, message in found:
        at = ".".join(str(p) for p in path)
        where = _where_of(doc, path)
        lines.append(ImportProblem(source.shown, where, f"{message} (at {at})", source.position(path)))
    first = lines[0]
    if len(lines) > 1:
        first.args = ("\n".join(str(p) for p in lines),)
    return first


def _check_unique_operation_ids(source: SourceFile, operations: list[Any]) -> None:
    seen: dict[str, str] = {}
    for path, method, _item, op in operations:
        op_id = op.get("operationId")
        if not isinstance(op_id, str):
            continue
        where = _where(method, path, op)
        if op_id in seen:
            raise ImportProblem(
                source.shown, where, f"operationId {op_id!r} is not unique (also {seen[op_id]})"
            )
        seen[op_id] = f"{method.upper()} {path}"


def _validate(source: SourceFile, doc: Mapping[str, Any], version: str) -> None:
    try:
        from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator
    except ImportError:
        raise dependency_missing("openapi-spec-validator", "catalog-import", "--from openapi") from None
    validator = OpenAPIV30SpecValidator if version.startswith("3.0") else OpenAPIV31SpecValidator
    found: list[tuple[Path, str]] = []
    errors = validator(doc).iter_errors()
    try:
        for err in errors:
            if type(err).__name__ == "DuplicateOperationIDError":
                continue  # reported above, naming both operations
            path = tuple(getattr(err, "absolute_path", ()) or ())
            message = str(getattr(err, "message", None) or err).splitlines()[0]
            if len(message) > 200:
                message = message[:200] + "..."
            found.append((path, f"not valid OpenAPI {version}: {message}"))
    except Exception as err:  # the validator's semantic pass can stop on a document its schema pass refused
        if not found:
            stopped = f"{type(err).__name__}: {err}"
            found.append(((), f"not valid OpenAPI {version}: the validator stopped ({stopped})"))
    if found:
        raise _problems(source, doc, found)


def _draft(
    path: str,
    method: str,
    item: Mapping[str, Any],
    op: Mapping[str, Any],
    resolve: RefResolver,
    options: ImportOptions,
    where: str,
) -> Draft:
    derived = {"side_effect", "domain"}
    op_id = op.get("operationId")
    check_unicode(path, "path")
    if isinstance(op_id, str):
        check_unicode(op_id, "operationId")
    if isinstance(op_id, str) and TOOL_NAME.match(op_id):
        name = op_id
    else:
        name = snake(op_id)[:64] if isinstance(op_id, str) else derived_tool_name(method, path)
        derived.add("name")
    domain = _domain(op, path, options)
    parameters = _parameters(item, op, resolve, domain)
    inputs = parameters + _renamed(_body(op, resolve, domain), {f.name for f in parameters})
    outputs, errors = _responses(op, resolve, domain)
    description = _str(op.get("description"))
    summary = _str(op.get("summary"))
    return Draft(
        where=where,
        name=name,
        domain=domain,
        summary=summary,
        description=description if description.strip() != summary.strip() else "",
        inputs=inputs,
        outputs=outputs,
        side_effect=METHODS[method],
        extensions={k: v for k, v in op.items() if str(k).startswith("x-")},
        errors=errors,
        deprecated=bool(op.get("deprecated", False)),
        derived=derived,
        source_path=("paths", path, method),
    )


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _domain(op: Mapping[str, Any], path: str, options: ImportOptions) -> str:
    tags = op.get("tags")
    if isinstance(tags, list) and tags and isinstance(tags[0], str):
        return snake(check_unicode(tags[0], "tag"))
    for segment in path.split("/"):
        if segment and not segment.startswith("{"):
            return snake(segment)
    return snake(options.domain)


def _parameters(
    item: Mapping[str, Any], op: Mapping[str, Any], resolve: RefResolver, domain: str
) -> list[FieldSpec]:
    merged: dict[tuple[str, str], Mapping[str, Any]] = {}
    for raw in [*(item.get("parameters") or ()), *(op.get("parameters") or ())]:
        param = resolve(raw)
        merged[(str(param.get("name")), str(param.get("in")))] = param
    fields = []
    for (name, where_in), param in merged.items():
        if where_in == "cookie":
            raise Unsupported(f"cookie parameter {name!r} is not supported")
        if "schema" not in param:
            raise Unsupported(f"parameter {name!r} is given by 'content', not 'schema' (not supported)")
        schema = dict(resolve(param["schema"]))
        schema.update({k: v for k, v in param.items() if str(k).startswith("x-")})
        fields.append(
            field_spec(
                name,
                schema,
                required=where_in == "path" or bool(param.get("required", False)),
                domain=domain,
                output=False,
                resolve=resolve,
                what=f"parameter {name!r}",
                description=param.get("description") if isinstance(param.get("description"), str) else None,
            )
        )
    return fields


def _renamed(body: list[FieldSpec], parameter_names: set[str]) -> list[FieldSpec]:
    """The clash rule: a request body property named like a parameter becomes ``body_<name>`` (its
    semantic ID, when derived, follows the new name); if ``body_<name>`` is taken too, the operation
    cannot be held."""
    taken = parameter_names | {f.name for f in body}
    out = []
    for spec in body:
        if spec.name not in parameter_names:
            out.append(spec)
            continue
        new = f"body_{spec.name}"
        if new in taken:
            raise Unsupported(
                f"{spec.name!r} is both a parameter and a request body property, and {new!r} is taken"
            )
        taken.add(new)
        semantic_id = spec.semantic_id
        if "semantic_id" in spec.derived:
            semantic_id = semantic_id.rsplit(".", 1)[0] + "." + new
        out.append(spec.model_copy(update={"name": new, "semantic_id": semantic_id}))
    return out


def _body(op: Mapping[str, Any], resolve: RefResolver, domain: str) -> list[FieldSpec]:
    if "requestBody" not in op:
        return []
    body = resolve(op["requestBody"])
    content = body.get("content") or {}
    body_required = bool(body.get("required", False))
    media = next((m for m in _BODY_TYPES if m in content), None)
    media = media or next((m for m in content if str(m).endswith("+json")), None)
    if media is None:
        binary = next((m for m in content if _is_binary(m, content[m], resolve)), None)
        if binary is None:
            raise Unsupported(
                f"request body media types {sorted(content)} are not supported (JSON, form or binary only)"
            )
        return [
            _whole_body(
                domain,
                body_required,
                "string",
                f"The request body: binary content ({binary}), base64-encoded.",
            )
        ]
    schema = content[media].get("schema")
    if schema is None:
        raise Unsupported(f"request body {media} has no schema")
    resolved = resolve(schema)
    if isinstance(resolved, Mapping) and resolved.get("type") == "array":
        text = resolved.get("description") if isinstance(resolved.get("description"), str) else None
        return [_whole_body(domain, body_required, "array", text or f"The request body: a list ({media}).")]
    return [
        field_spec(
            name,
            prop,
            required=required and body_required,
            domain=domain,
            output=False,
            resolve=resolve,
            what=f"request body property {name!r}",
        )
        for name, prop, required in object_properties(schema, resolve=resolve, what="the request body")
    ]


def _is_binary(media: str, content: Any, resolve: RefResolver) -> bool:
    """A binary body: ``application/octet-stream`` or another media type whose schema is a string of
    ``format: binary`` (or has no schema, for ``application/octet-stream``)."""
    schema = resolve(content.get("schema")) if isinstance(content, Mapping) and content.get("schema") else {}
    if isinstance(schema, Mapping) and schema.get("type") == "string" and schema.get("format") == "binary":
        return True
    return media == "application/octet-stream" and not (
        isinstance(schema, Mapping) and schema.get("type") not in (None, "string")
    )


def _whole_body(domain: str, required: bool, kind: str, description: str) -> FieldSpec:
    """The one input ``body`` that holds a request body that is not an object: a list (``array``) or
    binary content (a base64 ``string``)."""
    return field_spec(
        "body",
        {"type": kind, "description": description},
        required=required,
        domain=domain,
        output=False,
        what="the request body",
    )


def _responses(op: Mapping[str, Any], resolve: RefResolver, domain: str) -> tuple[list[FieldSpec], list[str]]:
    """The output fields of the first 2xx response and the error classes of the 4xx and 5xx ones."""
    responses = op.get("responses") or {}
    codes = sorted(str(c) for c in responses)
    errors = _error_classes(responses, codes, resolve)
    success = next((code for code in codes if code.startswith("2")), None)
    if success is None:
        return [], errors
    return _output_fields(resolve(responses[success]), success, resolve, domain), errors


def _error_classes(responses: Mapping[str, Any], codes: list[str], resolve: RefResolver) -> list[str]:
    """Each 4xx and 5xx response's ``x-error-class``, or ``HTTP_<code>`` when it names none."""
    errors = []
    for code in codes:
        if code[:1] in ("4", "5"):
            label = resolve(responses[code]).get("x-error-class")
            errors.append(label if isinstance(label, str) and label else f"HTTP_{code.upper()}")
    return errors


def _output_fields(response: Any, code: str, resolve: RefResolver, domain: str) -> list[FieldSpec]:
    """The typed outputs of a success response (none when its JSON body is not an object or a list of
    objects)."""
    schema = _output_schema(response, resolve)
    if schema is None:
        return []
    props = object_properties(schema, resolve=resolve, what=f"the {code} response")
    return [
        field_spec(
            name, prop, required=req, domain=domain, output=True, resolve=resolve, what=f"output {name!r}"
        )
        for name, prop, req in props
    ]


def _output_schema(response: Any, resolve: RefResolver) -> Mapping[str, Any] | None:
    """The object schema of a response's JSON content (an array's item schema), or None."""
    content = response.get("content") or {}
    media = next((m for m in content if m == "application/json" or str(m).endswith("+json")), None)
    schema = resolve(content[media].get("schema")) if media else None
    if not isinstance(schema, Mapping):
        return None
    if schema.get("type") == "array":
        items = resolve(schema.get("items") or {})
        return items if ("properties" in items or "allOf" in items) else None
    if "properties" in schema or "allOf" in schema or schema.get("type") == "object":
        return schema
    return None
