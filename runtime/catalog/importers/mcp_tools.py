"""``mcp``: an MCP ``tools/list`` response (the JSON-RPC message, or its ``result``), one endpoint per tool.

The tools are read with the official MCP SDK's types (``mcp.types.ListToolsResult``), so a tool that
is not a valid MCP tool (no ``name``, no ``inputSchema``, ...) is one line naming it. Inputs are the
``inputSchema``'s properties, outputs the ``outputSchema``'s. The side effect is derived from the
annotations as the MCP specification defines their defaults: ``readOnlyHint`` true is read; otherwise
``destructiveHint`` (default true) makes it destructive, and false makes it write. The summary is the
tool's title (``title`` or ``annotations.title``), else the description's first sentence. ``_meta``
may carry ``x-route-id``, ``x-domain`` and ``x-side-effect``; otherwise those are derived.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

from pydantic import ValidationError

from runtime.catalog.importers.assemble import Draft, catalog_of, endpoint_of
from runtime.catalog.importers.identifiers import label
from runtime.catalog.importers.naming import snake
from runtime.catalog.importers.options import ImportOptions
from runtime.catalog.importers.problems import ImportProblem, dependency_missing
from runtime.catalog.importers.refs import RefResolver, find_dangling
from runtime.catalog.importers.registry import register_importer
from runtime.catalog.importers.schema_fields import (
    BrokenReference,
    Unsupported,
    field_spec,
    object_properties,
)
from runtime.catalog.importers.source import SourceFile
from runtime.catalog.model import Catalog, Endpoint, SideEffect
from runtime.core import limits


@register_importer("mcp")
class McpImporter:
    code: ClassVar[str]

    def import_catalog(self, source: SourceFile, options: ImportOptions) -> Catalog:
        try:
            from mcp.types import ListToolsResult
        except ImportError:
            raise dependency_missing("mcp", "catalog-import", "--from mcp") from None
        result = _result(source)
        base: tuple[str | int, ...] = ("result", "tools") if "jsonrpc" in source.data else ("tools",)
        if len(result["tools"]) > limits.OPERATIONS_PER_DOCUMENT:
            count = limits.over_limit("tools", len(result["tools"]), "OPERATIONS_PER_DOCUMENT")
            raise ImportProblem(source.shown, "(message)", count, source.position(base))
        try:
            listed = ListToolsResult.model_validate(result)
        except ValidationError as err:
            raise _tool_problem(source, result, err) from None
        domain = snake(options.domain)
        pairs: list[tuple[str, Endpoint]] = []
        for i, tool in enumerate(listed.tools):
            where = f"tools[{i}] ({label(tool.name)})"
            at = source.position((*base, i))
            try:
                draft = _draft(tool, domain, where)
            except Unsupported as err:
                if options.strict or isinstance(err, BrokenReference):
                    raise ImportProblem(source.shown, where, str(err), at) from None
                options.skip(where, str(err))
                continue
            draft.source_path = (*base, i)
            pairs.append((where, endpoint_of(draft, source)))
        return catalog_of(pairs, source, self.code)


def _result(source: SourceFile) -> Mapping[str, Any]:
    data = source.data
    if isinstance(data, Mapping) and "jsonrpc" in data:
        if "error" in data:
            raise ImportProblem(
                source.shown, "(message)", "the JSON-RPC message is an error, not a tools/list result"
            )
        data = data.get("result")
    if not isinstance(data, Mapping) or not isinstance(data.get("tools"), list):
        raise ImportProblem(
            source.shown,
            "(message)",
            'not a tools/list response: expected {"tools": [...]} or a JSON-RPC result',
        )
    return data


def _tool_problem(source: SourceFile, result: Mapping[str, Any], err: ValidationError) -> ImportProblem:
    first = err.errors(include_url=False)[0]
    loc = first["loc"]
    if len(loc) >= 2 and loc[0] == "tools" and isinstance(loc[1], int):
        raw = result["tools"][loc[1]]
        name = raw.get("name") if isinstance(raw, Mapping) else None
        where = f"tools[{loc[1]}]" + (f" ({name})" if isinstance(name, str) else "")
        rest = ".".join(str(p) for p in loc[2:])
        if first["type"] == "missing" and len(loc) == 3:
            message = f"the tool has no {rest!r}"
        else:
            message = f"{rest or 'the tool'}: {first['msg']}"
    else:
        where = "(message)"
        message = f"{'.'.join(str(p) for p in loc)}: {first['msg']}"
    return ImportProblem(source.shown, where, message)


class ToolHints(Protocol):
    """The behaviour hints of an MCP tool's annotations (``mcp.types.ToolAnnotations``)."""

    @property
    def read_only_hint(self) -> bool | None: ...

    @property
    def destructive_hint(self) -> bool | None: ...


def side_effect_of(annotations: ToolHints | None) -> SideEffect:
    """The MCP annotation defaults: readOnlyHint false, destructiveHint true."""
    if annotations is not None and annotations.read_only_hint is True:
        return "read"
    destructive = None if annotations is None else annotations.destructive_hint
    return "write" if destructive is False else "destructive"


def _draft(tool: Any, domain: str, where: str) -> Draft:
    inputs = _fields(tool.input_schema, domain, output=False, what="inputSchema")
    outputs = []
    if tool.output_schema is not None:
        outputs = _fields(tool.output_schema, domain, output=True, what="outputSchema")
    title = tool.title or (tool.annotations.title if tool.annotations is not None else None) or ""
    meta = tool.meta or {}
    return Draft(
        where=where,
        name=tool.name,
        domain=domain,
        summary=title,
        description=tool.description or "",
        inputs=inputs,
        outputs=outputs,
        side_effect=side_effect_of(tool.annotations),
        extensions={k: v for k, v in meta.items() if str(k).startswith("x-")},
        derived={"domain", "side_effect"},
    )


def _fields(schema: Any, domain: str, *, output: bool, what: str) -> list[Any]:
    """The fields of a tool's ``inputSchema`` or ``outputSchema``; its ``$ref``s resolve within that
    schema (``#/$defs/...``), and one to another file or a URL is refused, as the OpenAPI importer does."""
    resolve = RefResolver(schema)
    dangling = find_dangling(schema, resolve)
    if dangling:
        path, message = dangling[0]
        raise BrokenReference(f"{message} (at {'.'.join([what, *map(str, path)])})")
    kind = "output" if output else "input"
    return [
        field_spec(
            name, prop, required=req, domain=domain, output=output, resolve=resolve, what=f"{kind} {name!r}"
        )
        for name, prop, req in object_properties(schema, resolve=resolve, what=what)
    ]
