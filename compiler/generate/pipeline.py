"""``sr generate``: spec -> endpoints -> plans -> drafts -> nesting -> tasks -> files, all in memory.

The files (paths relative to the project): catalogs/catalog_<size>.json for each size,
catalogs/surface.jsonl, catalogs/provenance.json (route origins, distractor kinds, nesting order) and
catalogs/manifest.json (sha256 of every other file and of the spec files read; "do not edit").
Writing is separate from generating so ``--check`` can compare bytes without touching the tree.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compiler.generate.endpoints import Provenance, build_all
from compiler.generate.intents import resolve_intents
from compiler.generate.load import GeneratorInputs, load_inputs
from compiler.generate.nesting import distractor_kinds, nesting_order
from compiler.generate.sampling import sample_drafts
from compiler.generate.tasks import assemble_task
from runtime.catalog.io import dump_catalog
from runtime.catalog.model import Catalog, Endpoint
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONValue
from runtime.core.progress import Progress, announce, counted
from runtime.surface.io import SURFACE_FILE, dump_surface
from runtime.surface.model import Task
from schemarouter.project import ProjectPaths

GENERATOR_VERSION = 1


@dataclass(frozen=True)
class Generated:
    files: dict[str, str]  # path relative to the project root -> exact text
    catalogs: dict[int, Catalog]
    tasks: list[Task]


def _json(data: JSONValue) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1) + "\n"


def generate(project: ProjectPaths, *, progress: Progress | None = None) -> Generated:
    """Everything `sr generate` writes, computed from the spec files alone (``progress``: each stage,
    then each task assembled)."""
    announce(progress, "reading the generator's specs", 0)
    inputs = load_inputs(project.spec_dir)
    announce(progress, "building the endpoints", 0)
    endpoints, provenance = build_all(inputs)
    by_route = {e.route_id: e for e in endpoints}
    core = {r for r, p in provenance.items() if p.role == "core"}
    announce(progress, "resolving the intents and sampling the tasks", 0)
    _, resolved = resolve_intents(inputs, endpoints, core)
    drafts = sample_drafts(inputs, resolved)
    required = {s.route_id for d in drafts for s in d.intent.plan}
    smallest = min(inputs.catalog_sizes)
    if len(required) > smallest:
        raise SchemaRouterError(
            f"{len(required)} routes are needed by tasks; catalog_{smallest} cannot hold them"
        )
    order = nesting_order(
        by_route,
        provenance,
        required,
        seed=inputs.seeds["catalog"],
        interleave=inputs.generator.catalog.interleave,
    )
    if max(inputs.catalog_sizes) != len(order):
        raise SchemaRouterError(f"the largest catalog size must be {len(order)} (catalog.largest)")
    catalogs = {
        size: Catalog(
            size=size, endpoints=tuple(sorted((by_route[r] for r in order[:size]), key=lambda e: e.route_id))
        )
        for size in inputs.catalog_sizes
    }
    full = catalogs[max(inputs.catalog_sizes)]
    tasks = sorted(
        (
            assemble_task(inputs, d, full, catalogs[smallest], provenance)
            for d in counted(progress, "assembling tasks", drafts, unit="tasks")
        ),
        key=lambda t: t.task_id,
    )
    _check_queries(tasks, endpoints)
    files = {f"catalogs/catalog_{size}.json": dump_catalog(c) for size, c in catalogs.items()}
    files[f"catalogs/{SURFACE_FILE}"] = dump_surface(tasks)
    files["catalogs/provenance.json"] = _json(_provenance(inputs, by_route, provenance, required, order))
    files["catalogs/manifest.json"] = _json(_manifest(inputs, files))
    return Generated(files=files, catalogs=catalogs, tasks=tasks)


def _check_queries(tasks: list[Task], endpoints: Sequence[Endpoint]) -> None:
    names = [(e.route_id.casefold(), e.name.casefold()) for e in endpoints]
    seen: dict[str, str] = {}
    for t in tasks:
        q = t.query.casefold()
        for route_id, name in names:
            if route_id in q or name in q:
                raise SchemaRouterError(f"{t.task_id}: query names a route ({route_id})")
        if t.query in seen:
            raise SchemaRouterError(f"{t.task_id}: same query as {seen[t.query]}")
        seen[t.query] = t.task_id


def _provenance(
    inputs: GeneratorInputs,
    by_route: Mapping[str, Endpoint],
    provenance: Mapping[str, Provenance],
    required: set[str],
    order: list[str],
) -> dict[str, Any]:
    kinds = distractor_kinds(by_route, provenance, required)
    first_size = {}
    for position, route_id in enumerate(order):
        first_size[route_id] = min(s for s in inputs.catalog_sizes if position < s)
    routes = {}
    for route_id in sorted(by_route):
        p = provenance[route_id]
        routes[route_id] = {
            "origin": p.origin,
            "role": p.role,
            "base": p.base,
            "verb": p.verb,
            "lookalike_of": p.lookalike_of,
            "near_duplicate_of": p.near_duplicate_of,
            "variant_of": p.variant_of,
            "required": route_id in required,
            "first_catalog_size": first_size[route_id],
            "distractor_kinds": sorted(k for k, members in kinds.items() if route_id in members),
        }
    return {
        "note": "Generated by `sr generate`; do not edit. Never shown to a model or the retriever.",
        "domains": sorted({e.domain for e in by_route.values()}),
        "nesting_order": order,
        "routes": routes,
    }


def _manifest(inputs: GeneratorInputs, files: dict[str, str]) -> dict[str, Any]:
    return {
        "note": "Generated by `sr generate`; do not edit. `sr generate --check` verifies these bytes.",
        "generator_version": GENERATOR_VERSION,
        "seeds": {k: inputs.seeds[k] for k in ("catalog", "surface", "world")},
        "sources": {path: {"sha256": digest} for path, digest in inputs.source_sha256.items()},
        # What generation reads of the core specs: values, not file hashes, so an unrelated edit of
        # those files does not make the generated files look stale.
        "core_inputs": {
            "catalog_sizes": list(inputs.catalog_sizes),
            "languages": list(inputs.languages),
            "tasks_per_cell": inputs.tasks_per_cell,
            "strata": [
                {
                    "id": s.id,
                    "code": s.code,
                    "plan_steps": s.plan_steps,
                    "error_classes": list(s.error_classes),
                    "dimensions": list(s.dimensions),
                }
                for s in inputs.strata
            ],
            "error_classes": sorted(inputs.error_classes),
            "identifier_pattern": inputs.identifier_pattern,
        },
        "files": {
            path: {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
            for path, text in sorted(files.items())
        },
    }


def write_generated(project: ProjectPaths, generated: Generated) -> list[str]:
    """Write every file whose bytes changed; returns the paths written."""
    written = []
    for rel, text in sorted(generated.files.items()):
        path = project.physical(rel)
        data = text.encode("utf-8")
        if path.exists() and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(rel)
    return written


def differences(project: ProjectPaths, generated: Generated) -> list[str]:
    """Paths whose committed bytes differ from a fresh generation (missing files included)."""
    out = []
    for rel, text in sorted(generated.files.items()):
        path: Path = project.physical(rel)
        if not path.exists() or path.read_bytes() != text.encode("utf-8"):
            out.append(rel)
    return out
