"""Shared last steps of every importer: one endpoint from its parts, and the sorted, checked catalog."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from runtime.catalog.importers.identifiers import (
    IdentifierProblem,
    check_domain,
    check_field_name,
    check_grammar,
    check_route_id,
    check_semantic_id,
)
from runtime.catalog.importers.naming import TOOL_NAME, derived_route_id, first_sentence
from runtime.catalog.importers.problems import ImportProblem
from runtime.catalog.importers.side_effects import derived_effect
from runtime.catalog.importers.source import SourceFile
from runtime.catalog.model import Catalog, CatalogSource, Endpoint, FieldSpec, SideEffect
from runtime.core.json_value import JSONValue
from runtime.documents import shown

SIDE_EFFECTS: tuple[SideEffect, ...] = ("read", "write", "destructive")


@dataclass
class Draft:
    """An endpoint as an importer reads it; ``derived`` collects what was not read from the source."""

    where: str
    name: str
    domain: str
    summary: str
    description: str
    inputs: list[FieldSpec]
    outputs: list[FieldSpec]
    side_effect: SideEffect
    extensions: Mapping[str, Any]
    errors: list[str] = field(default_factory=list)
    deprecated: bool = False
    derived: set[str] = field(default_factory=set)
    # Where the operation or tool is in the source's data, for the position of a problem's line.
    source_path: tuple[str | int, ...] = ()


def endpoint_of(draft: Draft, source: SourceFile) -> Endpoint:
    """The endpoint: ``x-route-id``, ``x-domain`` and ``x-side-effect`` override what was derived; every
    name is held to the catalog's grammars (``identifiers.py``); an undeclared side effect is made as
    dangerous as the verbs of the name and the description (``side_effects.py``)."""
    try:
        return _endpoint(draft)
    except IdentifierProblem as err:
        raise ImportProblem(source.shown, draft.where, str(err), source.position(draft.source_path)) from None


def _endpoint(draft: Draft) -> Endpoint:
    check_grammar(draft.name, TOOL_NAME, "tool name")
    ext = draft.extensions
    derived = set(draft.derived)
    domain = ext.get("x-domain")
    if "x-domain" in ext:
        if not isinstance(domain, str):
            raise IdentifierProblem("x-domain must be a string")
        check_domain(domain, "x-domain")
        derived.discard("domain")
    else:
        domain = check_domain(draft.domain)
    route_id = ext.get("x-route-id")
    if "x-route-id" in ext:
        if not isinstance(route_id, str):
            raise IdentifierProblem("x-route-id must be a string")
        check_route_id(route_id, "x-route-id")
    else:
        route_id = check_route_id(derived_route_id(domain, draft.name), "the derived route ID")
        derived.add("route_id")
    side_effect = ext.get("x-side-effect", draft.side_effect)
    if "x-side-effect" in ext:
        if side_effect not in SIDE_EFFECTS:
            raise IdentifierProblem(
                f"x-side-effect {shown(side_effect)} is not one of read, write, destructive"
            )
        derived.discard("side_effect")
    else:
        side_effect = derived_effect(draft.side_effect, draft.name, draft.description)
    for spec in (*draft.inputs, *draft.outputs):
        check_field_name(spec.name, "field name")
        if "semantic_id" not in spec.derived:
            check_semantic_id(spec.semantic_id, f"x-semantic-id of {shown(spec.name)}")
    names = [f.name for f in draft.inputs]
    clash = sorted({n for n in names if names.count(n) > 1})
    if clash:
        raise IdentifierProblem(f"input {shown(clash[0])} is defined twice")
    summary = draft.summary.strip() or first_sentence(draft.description) or draft.name
    if not draft.summary.strip():
        derived.add("summary")
    return Endpoint(
        route_id=route_id,
        name=draft.name,
        domain=domain,
        summary=" ".join(summary.split()),
        description=" ".join(draft.description.split()),
        summaries={"en": " ".join(summary.split())},
        inputs=tuple(draft.inputs),
        outputs=tuple(draft.outputs),
        side_effect=side_effect,
        errors=tuple(sorted(set(draft.errors))),
        deprecated=draft.deprecated,
        derived=tuple(sorted(derived)),
    )


def catalog_of(
    pairs: Sequence[tuple[str, Endpoint]],
    source: SourceFile,
    code: str,
    *,
    title: JSONValue = None,
    version: JSONValue = None,
) -> Catalog:
    """The catalog of ``(where, endpoint)`` pairs, sorted by route ID; a route ID or tool name used twice
    is one line naming both places."""
    if not pairs:
        raise ImportProblem(source.shown, "(file)", "no operation or tool to import")
    for attribute in ("route_id", "name"):
        seen: dict[str, str] = {}
        for where, endpoint in pairs:
            value = getattr(endpoint, attribute)
            if value in seen:
                raise ImportProblem(
                    source.shown,
                    where,
                    f"{attribute.replace('_', ' ')} {value!r} is also used by {seen[value]}",
                )
            seen[value] = where
    endpoints = tuple(sorted((e for _, e in pairs), key=lambda e: e.route_id))
    return Catalog(
        size=len(endpoints),
        endpoints=endpoints,
        source=CatalogSource(
            format=code,
            file=source.path.name,
            sha256=source.sha256,
            title=title if isinstance(title, str) else None,
            version=str(version) if isinstance(version, str | int | float) else None,
        ),
    )
