"""A task surface from any intents file, against an experiment's committed catalogs.

``sr generate`` builds an experiment's catalogs and its evaluation surface together. This module
builds only a surface, and never touches the catalogs: it reads the experiment's generator inputs
(fields, endpoints, generator settings, strata, languages) through the strict loader, takes intents
and pools from the given files, and assembles tasks against ``catalogs/<id>/catalog_<size>.json`` and
``catalogs/<id>/provenance.json`` as committed. A plan route missing from the smallest catalog is
refused with one line naming the intent and the route, since such a task could not run at every size.

Determinism is the generator's: named seeds only (``surface`` for sampling, ``world`` for world
contents), each ``random.Random`` seeded from a string, never global random state or ``hash()``.

The development surface (``spec/_surfaces/dev/``) is one such surface with its own seeds; it is written
to ``catalogs/_surfaces/dev/<experiment-id>/`` with a manifest of hashes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, cast

from compiler.generate.endpoints import Provenance
from compiler.generate.intents import ResolvedIntent, resolve_intents
from compiler.generate.load import (
    GeneratorInputs,
    load_inputs,
    parse_yaml_bytes,
    validate_against,
)
from compiler.generate.phrasing import PhrasingError, parse_phrasing
from compiler.generate.pipeline import _check_queries
from compiler.generate.sampling import sample_drafts
from compiler.generate.spec_model import IntentDef, PoolDef
from compiler.generate.surface_names import (
    DEV_SURFACE,
    SURFACES_DIR,
    named_surface_out_dir,
    named_surface_spec_dir,
)
from compiler.generate.tasks import assemble_task
from compiler.schema_validation import validate_document
from runtime.catalog.io import load_catalog_with_digest
from runtime.catalog.model import Catalog
from runtime.core import limits
from runtime.core.atomic_write import write_bytes_atomic
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONValue
from runtime.core.progress import Progress, announce, counted
from runtime.documents import (
    UserDocument,
    issue_lines,
    load_json_text,
    read_user_document,
    sorted_issues,
)
from runtime.surface.io import SURFACE_FILE, dump_surface
from runtime.surface.model import Task
from schemarouter.project import ProjectPaths

SURFACE_GENERATOR_VERSION = 1
MANIFEST_FILE = "manifest.json"


@dataclass(frozen=True)
class SurfaceSettings:
    """What a surface is generated from, besides the experiment: files, seeds and a task-id tag."""

    name: str
    intents: Path
    pools: Path | None
    seeds: dict[str, int]  # surface, world
    tag: str  # task ids are <stratum code>-<language>-<tag>-<nn>
    schema_dir: Path | None = None  # schemas beside the files (default: the experiment's)


@dataclass(frozen=True)
class GeneratedSurface:
    experiment: str | None
    tasks: list[Task]
    files: dict[str, str]  # file name inside the output directory -> exact text


def _rel(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def read_yaml_file(path: Path, *, display: str) -> JSONValue:
    """A YAML file through the strict loader (YAML 1.2 core); every problem at once."""
    if not path.is_file():
        raise SchemaRouterError(f"{display}: missing")
    return parse_yaml_bytes(path.read_bytes(), display=display)


def _schema_for(settings: SurfaceSettings, project: ProjectPaths, name: str) -> Path:
    if settings.schema_dir is not None and (settings.schema_dir / f"{name}.schema.json").is_file():
        return settings.schema_dir / f"{name}.schema.json"
    return project.schema_dir / f"{name}.schema.json"


def _load_overlay(project: ProjectPaths, settings: SurfaceSettings, base: GeneratorInputs) -> GeneratorInputs:
    """The experiment's inputs with the surface's intents, and its pools added to the experiment's.

    Both files come through the one bounded reading of user documents (``documents.read_user_document``:
    size, nesting, no anchors, aliases, duplicate keys or control characters), then the schema, the
    limits and the restricted phrasing formatter, every problem at its ``file:line:col`` and never
    echoing the file."""
    root = project.root
    shown = _rel(root, settings.intents)
    doc = _user_document(settings.intents, shown, "intents", "intents file")
    _validate_user(doc, _schema_for(settings, project, "intents"))
    _check_intents_file(doc, {stratum.id for stratum in base.strata})
    try:
        intents = tuple(IntentDef.model_validate(v) for v in doc.data["intents"])
    except ValueError as err:
        raise doc.fail(("intents",), _first_error(err)) from None
    pools: dict[str, PoolDef] = dict(base.pools)
    sha = {f"intents:{shown}": doc.sha256}
    if settings.pools is not None:
        shown_pools = _rel(root, settings.pools)
        pdoc = _user_document(settings.pools, shown_pools, "pools", "pools file")
        _validate_user(pdoc, _schema_for(settings, project, "pools"))
        for name, raw in pdoc.data["pools"].items():
            if name in pools:
                raise pdoc.fail(
                    ("pools", name),
                    "the experiment's spec/pools.yaml already defines it; "
                    "give the surface's pool another name",
                )
            try:
                pools[name] = PoolDef.model_validate(raw)
            except ValueError as err:
                raise pdoc.fail(("pools", name), _first_error(err)) from None
        sha[f"pools:{shown_pools}"] = pdoc.sha256
    return dataclasses.replace(
        base,
        intents=intents,
        pools=pools,
        seeds={**base.seeds, **settings.seeds},
        source_sha256=sha,
        intents_file=shown,
    )


def _user_document(path: Path, shown: str, key: str, what: str) -> UserDocument:
    """A user's intents or pools file: bounded reading, and a mapping holding ``key`` (checked before the
    schema, so a file of another kind, /etc/passwd say, is one line that shows none of it)."""
    doc = read_user_document(path, shown_as=shown, what=what)
    if not isinstance(doc.data, dict) or key not in doc.data:
        raise doc.fail((), f"the {what} must be a mapping with '{key}' (format: compiler/generate/README.md)")
    return doc


def _validate_user(doc: UserDocument, schema_path: Path) -> None:
    if not schema_path.is_file():
        raise SchemaRouterError(f"{schema_path}: missing schema for {doc.shown}")
    schema = load_json_text(schema_path.read_text(encoding="utf-8"), file=str(schema_path)).data
    issues = validate_document(doc.loaded, schema)
    if issues:
        raise SchemaRouterError(issue_lines(sorted_issues(issues)))


def _check_intents_file(doc: UserDocument, strata: set[str]) -> None:
    """The limits on intents and phrasings, every phrasing through the restricted formatter, and the
    intent ids and strata (at their lines; what needs the route graph is checked after)."""
    intents = doc.data["intents"]
    if len(intents) > limits.INTENTS_PER_FILE:
        raise doc.fail(("intents",), limits.over_limit("intents", len(intents), "INTENTS_PER_FILE"))
    seen: dict[str, int] = {}
    for i, intent in enumerate(intents):
        if intent["id"] in seen:
            raise doc.fail(
                ("intents", i, "id"), f"intent {intent['id']} is also intents[{seen[intent['id']]}]"
            )
        seen[intent["id"]] = i
        if intent["stratum"] not in strata:
            known = ", ".join(sorted(strata))
            raise doc.fail(
                ("intents", i, "stratum"), f"intent {intent['id']}: unknown stratum (strata: {known})"
            )
        for lang, texts in sorted(intent.get("phrasings", {}).items()):
            for j, text in enumerate(texts):
                try:
                    parse_phrasing(text)
                except PhrasingError as err:
                    where = ("intents", i, "phrasings", lang, j)
                    raise doc.fail(where, f"intent {intent['id']} ({lang}): {err}") from None


def _first_error(err: ValueError) -> str:
    errors = getattr(err, "errors", None)
    if callable(errors):
        first = errors(include_url=False, include_input=False)[0]
        place = ".".join(str(p) for p in first["loc"])
        return f"{place}: {first['msg']}" if place else str(first["msg"])
    return str(err).splitlines()[0]


def _committed_catalogs(
    project: ProjectPaths, sizes: tuple[int, ...]
) -> tuple[dict[int, Catalog], dict[str, str]]:
    catalogs, digests = {}, {}
    for size in sizes:
        catalogs[size], digests[f"catalogs/catalog_{size}.json"] = load_catalog_with_digest(
            project.catalogs_dir, size
        )
    return catalogs, digests


def _committed_provenance(project: ProjectPaths) -> dict[str, Provenance]:
    path = project.catalogs_dir / "provenance.json"
    if not path.is_file():
        raise SchemaRouterError(f"{_rel(project.root, path)}: missing; run `sr generate` first")
    data = json.loads(path.read_text(encoding="utf-8"))
    fields = {f.name for f in dataclasses.fields(Provenance)}
    return {
        route_id: Provenance(
            route_id=route_id, **{k: v for k, v in row.items() if k in fields and k != "route_id"}
        )
        for route_id, row in data["routes"].items()
    }


def _require_in_smallest(resolved: list[ResolvedIntent], smallest: Catalog, shown: str) -> None:
    routes = set(smallest.by_route())
    for ri in resolved:
        for step in ri.plan:
            if step.route_id not in routes:
                raise SchemaRouterError(
                    f"{shown}: intent {ri.intent.id}: route {step.route_id} is not in "
                    f"catalog_{smallest.size}; a surface may only use routes of the smallest catalog"
                )


def planning_routes(provenance: Mapping[str, Provenance], smallest: Catalog) -> set[str]:
    """Every route a surface may plan over: those of the smallest catalog (so a task runs at every
    size) that are not a deprecated/beta twin of another route (``variant_of``). Core routes are tried
    first (``resolve_intents``); the others let a surface reach capabilities no earlier plan used."""
    return {r for r in smallest.by_route() if r in provenance and provenance[r].variant_of is None}


def _retag(task: Task, tag: str) -> Task:
    code, lang, number = task.task_id.split("-")
    return task.model_copy(update={"task_id": f"{code}-{lang}-{tag}-{number}"})


def generate_surface(
    project: ProjectPaths, settings: SurfaceSettings, *, progress: Progress | None = None
) -> GeneratedSurface:
    """The surface of ``settings`` against the committed catalogs of ``project``'s experiment
    (``progress``: each stage, then each task assembled)."""
    announce(progress, "reading the intents and the committed catalogs", 0)
    base = load_inputs(project.spec_dir)
    inputs = _load_overlay(project, settings, base)
    planned = len(inputs.strata) * len(inputs.languages) * inputs.tasks_per_cell
    if planned > limits.TASKS_PER_SURFACE:
        count = limits.over_limit("tasks", planned, "TASKS_PER_SURFACE")
        raise SchemaRouterError(f"{_rel(project.root, settings.intents)}: {count}")
    catalogs, digests = _committed_catalogs(project, inputs.catalog_sizes)
    provenance = _committed_provenance(project)
    full = catalogs[max(catalogs)]
    smallest = catalogs[min(catalogs)]
    endpoints = list(full.endpoints)
    core = {r for r, p in provenance.items() if p.role == "core" and r in full.by_route()}
    announce(progress, "resolving the intents and sampling the tasks", 0)
    _, resolved = resolve_intents(inputs, endpoints, core, planning_routes(provenance, smallest) - core)
    _require_in_smallest(resolved, smallest, _rel(project.root, settings.intents))
    drafts = sample_drafts(inputs, resolved)
    tasks = sorted(
        (
            _retag(assemble_task(inputs, d, full, smallest, provenance), settings.tag)
            for d in counted(progress, "assembling tasks", drafts, unit="tasks")
        ),
        key=lambda t: t.task_id,
    )
    _check_queries(tasks, endpoints)
    files = {SURFACE_FILE: dump_surface(tasks)}
    files[MANIFEST_FILE] = _manifest(project, settings, inputs, digests, files)
    return GeneratedSurface(experiment=project.experiment, tasks=tasks, files=files)


def _manifest(
    project: ProjectPaths,
    settings: SurfaceSettings,
    inputs: GeneratorInputs,
    catalog_digests: Mapping[str, str],
    files: Mapping[str, str],
) -> str:
    data = {
        "note": "Generated by `sr surface generate`; do not edit. `--check` verifies these bytes.",
        "surface": settings.name,
        "experiment": project.experiment,
        "surface_generator_version": SURFACE_GENERATOR_VERSION,
        "seeds": {k: inputs.seeds[k] for k in ("surface", "world")},
        "task_tag": settings.tag,
        "sources": {k: {"sha256": v} for k, v in sorted(inputs.source_sha256.items())},
        "catalogs": {k: {"sha256": v} for k, v in sorted(catalog_digests.items())},
        "tasks": len(json.loads("[" + ",".join(files[SURFACE_FILE].splitlines()) + "]")),
        "files": {
            name: {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}
            for name, text in sorted(files.items())
        },
    }
    return json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1) + "\n"


def write_surface(out_dir: Path, generated: GeneratedSurface) -> list[str]:
    """Write the files whose bytes changed; returns their names."""
    written = []
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in sorted(generated.files.items()):
        path = out_dir / name
        data = text.encode("utf-8")
        if path.exists() and path.read_bytes() == data:
            continue
        write_bytes_atomic(path, data)
        written.append(name)
    return written


def surface_differences(out_dir: Path, generated: GeneratedSurface) -> list[str]:
    return [
        name
        for name, text in sorted(generated.files.items())
        if not (out_dir / name).is_file() or (out_dir / name).read_bytes() != text.encode("utf-8")
    ]


# ---- the named development surface --------------------------------------------------------------


class _SurfaceSeeds(TypedDict):
    surface: int
    world: int


class _SurfaceFile(TypedDict):
    """``spec/_surfaces/<name>/surface.yaml`` as its schema (``surface.schema.json``) has it."""

    name: str
    purpose: str
    task_tag: str
    seeds: _SurfaceSeeds


def load_named_surface(root: Path, name: str = DEV_SURFACE) -> SurfaceSettings:
    """The settings of ``spec/_surfaces/<name>/surface.yaml`` (schema-validated)."""
    spec_dir = named_surface_spec_dir(root, name)
    shown = f"spec/{SURFACES_DIR}/{name}/surface.yaml"
    if not spec_dir.is_dir():
        raise SchemaRouterError(f"{shown}: no surface named {name!r}")
    data = read_yaml_file(spec_dir / "surface.yaml", display=shown)
    validate_against(spec_dir / "schema" / "surface.schema.json", data, display=shown)
    surface = cast(_SurfaceFile, data)  # the schema above holds it to this shape
    pools = spec_dir / "pools.yaml"
    return SurfaceSettings(
        name=surface["name"],
        intents=spec_dir / "intents.yaml",
        pools=pools if pools.is_file() else None,
        seeds={"surface": int(surface["seeds"]["surface"]), "world": int(surface["seeds"]["world"])},
        tag=surface["task_tag"],
        schema_dir=spec_dir / "schema",
    )


def generate_named(
    project: ProjectPaths, name: str, *, progress: Progress | None = None
) -> tuple[GeneratedSurface, Path]:
    """The named surface against ``project``'s catalogs, and the directory it belongs in."""
    return (
        generate_surface(project, load_named_surface(project.root, name), progress=progress),
        named_surface_out_dir(project.root, name, project.experiment),
    )
