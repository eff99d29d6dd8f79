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
from typing import Any, ClassVar

from pydantic import ValidationError

from schemarouter.runtime.catalog.importers.assemble import Draft, catalog_of, endpoint_of
from schemarouter.runtime.catalog.importers.naming import snake
from schemarouter.runtime.catalog.importers.options import ImportOptions
from schemarouter.runtime.catalog.importers.problems import ImportProblem, dependency_missing
from schemarouter.runtime.catalog.importers.registry import register_importer
from schemarouter.runtime.catalog.importers.schema_fields import Unsupported, field_spec, object_properties
from schemarouter.runtime.catalog.importers.source import SourceFile
from schemarouter.runtime.catalog.model import Catalog, Endpoint, SideEffect


@register_importer("mcp")
class McpImporter:
    code: ClassVar[str]

    def import_catalog(self, source: SourceFile, options: ImportOptions) -> Catalog:
        try:
            from mcp.types import ListToolsResult
        except ImportError:
            raise dependency_missing("mcp", "catalog-import", "--from mcp") from None
        result = _result(source)
        try:
            listed = ListToolsResult.model_validate(result)
        except ValidationError as err:
            raise _tool_problem(source, result, err) from None
        domain = snake(options.domain)
        pairs: list[tuple[str, Endpoint]] = []
        for i, tool in enumerate(listed.tools):
            where = f"tools[{i}] ({tool.name})"
            try:
                draft = _draft(tool, domain, where)
            except Unsupported as err:
                raise ImportProblem(source.shown, where, str(err)) from None
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


def side_effect_of(annotations: Any) -> SideEffect:
    """The MCP annotation defaults: readOnlyHint false, destructiveHint true."""
    if annotations is not None and annotations.read_only_hint is True:
        return "read"
    destructive = None if annotations is None else annotations.destructive_hint
    return "write" if destructive is False else "destructive"


def _draft(tool: Any, domain: str, where: str) -> Draft:
    inputs = [
        field_spec(name, prop, required=req, domain=domain, output=False, what=f"input {name!r}")
        for name, prop, req in object_properties(tool.input_schema, what="inputSchema")
    ]
    outputs = []
    if tool.output_schema is not None:
        outputs = [
            field_spec(name, prop, required=req, domain=domain, output=True, what=f"output {name!r}")
            for name, prop, req in object_properties(tool.output_schema, what="outputSchema")
        ]
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
