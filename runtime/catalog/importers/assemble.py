"""Shared last steps of every importer: one endpoint from its parts, and the sorted, checked catalog."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from schemarouter.runtime.catalog.importers.naming import TOOL_NAME, derived_route_id, first_sentence
from schemarouter.runtime.catalog.importers.problems import ImportProblem
from schemarouter.runtime.catalog.importers.source import SourceFile
from schemarouter.runtime.catalog.model import Catalog, CatalogSource, Endpoint, FieldSpec, SideEffect

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


def endpoint_of(draft: Draft, source: SourceFile) -> Endpoint:
    """The endpoint: ``x-route-id``, ``x-domain`` and ``x-side-effect`` override what was derived."""
    if not TOOL_NAME.match(draft.name):
        raise ImportProblem(
            source.shown, draft.where, f"tool name {draft.name!r} does not match ^[A-Za-z0-9_-]{{1,64}}$"
        )
    ext = draft.extensions
    derived = set(draft.derived)
    domain = ext.get("x-domain")
    if isinstance(domain, str) and domain:
        derived.discard("domain")
    else:
        domain = draft.domain
    route_id = ext.get("x-route-id")
    if not isinstance(route_id, str) or not route_id:
        route_id = derived_route_id(domain, draft.name)
        derived.add("route_id")
    side_effect = ext.get("x-side-effect", draft.side_effect)
    if "x-side-effect" in ext:
        if side_effect not in SIDE_EFFECTS:
            raise ImportProblem(
                source.shown,
                draft.where,
                f"x-side-effect {side_effect!r} is not one of read, write, destructive",
            )
        derived.discard("side_effect")
    names = [f.name for f in draft.inputs]
    clash = sorted({n for n in names if names.count(n) > 1})
    if clash:
        raise ImportProblem(source.shown, draft.where, f"input {clash[0]!r} is defined twice")
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
    title: Any = None,
    version: Any = None,
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
