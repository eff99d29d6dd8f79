"""``openai``: an OpenAI ``tools`` array (or ``{"tools": [...]}``), one endpoint per function tool.

Both shapes are read: Chat Completions' ``{"type": "function", "function": {"name", "description",
"parameters"}}`` and the Responses API's flat ``{"type": "function", "name", ...}``. Inputs are the
``parameters``' properties; OpenAI tools declare no outputs. The source says nothing about side
effects, so the side effect is derived from every verb of the name and from the description, the most
dangerous winning (``side_effects.py``: ``get_and_delete_all`` is destructive); a name with no known
verb is destructive, the safe reading; ``x-side-effect`` on the function says it instead. Other
tool types (``web_search``, ``file_search``, ...) and a function without a name are one line each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from runtime.catalog.importers.assemble import Draft, catalog_of, endpoint_of
from runtime.catalog.importers.identifiers import label
from runtime.catalog.importers.naming import snake
from runtime.catalog.importers.options import ImportOptions
from runtime.catalog.importers.problems import ImportProblem
from runtime.catalog.importers.refs import RefResolver, find_dangling
from runtime.catalog.importers.registry import register_importer
from runtime.catalog.importers.schema_fields import (
    BrokenReference,
    Unsupported,
    field_spec,
    object_properties,
)
from runtime.catalog.importers.side_effects import name_effect
from runtime.catalog.importers.source import SourceFile
from runtime.catalog.model import Catalog, Endpoint, SideEffect
from runtime.core import limits


@register_importer("openai")
class OpenAiToolsImporter:
    code: ClassVar[str]

    def import_catalog(self, source: SourceFile, options: ImportOptions) -> Catalog:
        data = source.data
        tools = data.get("tools") if isinstance(data, Mapping) else data
        if not isinstance(tools, list):
            raise ImportProblem(
                source.shown, "(file)", 'not an OpenAI tools array: expected [...] or {"tools": [...]}'
            )
        base: tuple[str | int, ...] = ("tools",) if isinstance(data, Mapping) else ()
        if len(tools) > limits.OPERATIONS_PER_DOCUMENT:
            count = limits.over_limit("tools", len(tools), "OPERATIONS_PER_DOCUMENT")
            raise ImportProblem(source.shown, "(file)", count, source.position(base))
        domain = snake(options.domain)
        pairs: list[tuple[str, Endpoint]] = []
        for i, tool in enumerate(tools):
            function = _function(source, i, tool)
            where = f"tools[{i}] ({label(function['name'])})"
            try:
                draft = _draft(function, domain, where)
            except Unsupported as err:
                raise ImportProblem(source.shown, where, str(err), source.position((*base, i))) from None
            draft.source_path = (*base, i)
            pairs.append((where, endpoint_of(draft, source)))
        return catalog_of(pairs, source, self.code)


def _function(source: SourceFile, i: int, tool: Any) -> Mapping[str, Any]:
    where = f"tools[{i}]"
    if not isinstance(tool, Mapping):
        raise ImportProblem(source.shown, where, "a tool must be an object")
    kind = tool.get("type", "function")
    if kind != "function":
        raise ImportProblem(source.shown, where, f"tool type {kind!r} is not supported (only 'function')")
    function = tool.get("function", tool)
    if not isinstance(function, Mapping):
        raise ImportProblem(source.shown, where, "'function' must be an object")
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise ImportProblem(source.shown, where, "the tool has no 'name'")
    for key, kinds in (("description", str), ("parameters", Mapping)):
        if key in function and not isinstance(function[key], kinds):
            raise ImportProblem(source.shown, f"{where} ({name})", f"'{key}' has the wrong type")
    return function


def side_effect_of(name: str) -> SideEffect:
    """The OpenAI rule: the most dangerous verb of the name (``side_effects.py``); a name with no known
    verb is destructive, the safe reading. (The description can make it more dangerous still.)"""
    return name_effect(name) or "destructive"


def _draft(function: Mapping[str, Any], domain: str, where: str) -> Draft:
    parameters = function.get("parameters") or {"type": "object", "properties": {}}
    resolve = RefResolver(parameters)
    dangling = find_dangling(parameters, resolve)
    if dangling:  # a $ref to another file or a URL, or one that points nowhere: refused, as OpenAPI's are
        path, message = dangling[0]
        raise BrokenReference(f"{message} (at {'.'.join(['parameters', *map(str, path)])})")
    inputs = [
        field_spec(
            name, prop, required=req, domain=domain, output=False, resolve=resolve, what=f"parameter {name!r}"
        )
        for name, prop, req in object_properties(parameters, resolve=resolve, what="parameters")
    ]
    return Draft(
        where=where,
        name=str(function["name"]),
        domain=domain,
        summary="",
        description=str(function.get("description") or ""),
        inputs=inputs,
        outputs=[],
        side_effect=side_effect_of(str(function["name"])),
        extensions={k: v for k, v in function.items() if str(k).startswith("x-")},
        derived={"domain", "side_effect"},
    )
