"""Build the full catalog's endpoints: handwritten, generated CRUD routes, then version variants.

Order of work: field specs from spec/fields.yaml -> handwritten endpoints (spec/endpoints.yaml) ->
one generated route per (resource, verb) of spec/fields.yaml -> deprecated/beta variants of seeded
picks (core routes first) until the catalog has ``catalog.largest`` endpoints. Each endpoint gets a
``Provenance`` (origin, verb, look-alike relations) that the nesting order and the stats read.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from compiler.generate.load import GeneratorInputs
from compiler.generate.spec_model import EndpointDef, FieldDef, ResourceDef
from runtime.catalog.model import Endpoint, FieldSpec
from runtime.core.errors import SchemaRouterError
from runtime.simulator.expressions import check_expressions

_KEYED_OPS = frozenset({"get", "update", "delete", "resolve"})


@dataclass(frozen=True)
class Provenance:
    """Where a route came from and what it resembles (never shown to a model or the retriever)."""

    route_id: str
    base: str
    origin: str  # handwritten | crud | deprecated | beta
    role: str  # core | distractor
    verb: str
    lookalike_of: str | None = None
    near_duplicate_of: str | None = None
    variant_of: str | None = None


def field_name(inputs: GeneratorInputs, key: str) -> str:
    return inputs.fields[key].name or key


def field_spec(inputs: GeneratorInputs, key: str, *, required: bool = True) -> FieldSpec:
    if key not in inputs.fields:
        raise SchemaRouterError(f"spec/fields.yaml: unknown field {key!r}")
    f: FieldDef = inputs.fields[key]
    return FieldSpec(
        name=f.name or key,
        json_type=f.type,
        semantic_id=f.semantic,
        unit=f.unit,
        dimension=f.dimension,
        qualifier=f.qualifier,
        required=required,
        stable_identifier=f.id,
        enum=tuple(f.enum) if f.enum else None,
        description=f.description,
    )


def _inputs(inputs: GeneratorInputs, keys: tuple[str, ...]) -> tuple[FieldSpec, ...]:
    return tuple(field_spec(inputs, k.rstrip("?"), required=not k.endswith("?")) for k in keys)


def _realm(inputs: GeneratorInputs, domain: str) -> str | None:
    return next((r for r, domains in sorted(inputs.endpoints.realms.items()) if domain in domains), None)


def _complete_behavior(
    inputs: GeneratorInputs, route_id: str, op: dict[str, Any], ins: tuple[FieldSpec, ...]
) -> dict[str, Any]:
    b = dict(op)
    collection = b.get("collection")
    resource = inputs.resources.get(collection) if collection else None
    if resource is not None and "id_field" not in b:
        b["id_field"] = field_name(inputs, resource.id_field)
    if b["op"] in _KEYED_OPS and "key_input" not in b:
        names = [f.name for f in ins]
        if b.get("id_field") not in names:
            raise SchemaRouterError(f"spec/endpoints.yaml: {route_id}: no input names the {collection} ID")
        b["key_input"] = b["id_field"]
    if b["op"] in {"create", "upsert"} and "id_field" not in b:
        raise SchemaRouterError(f"spec/endpoints.yaml: {route_id}: create needs a resource collection")
    check_expressions(f"spec/endpoints.yaml: {route_id}", b)
    realm = _realm(inputs, route_id.split(".")[0])
    if realm and b["op"] not in {"refresh", "revoke"}:
        b["realm"] = realm
    return b


def _errors(b: dict[str, Any]) -> tuple[str, ...]:
    errors = {"INVALID_TYPE", "MISSING_INPUT", "RATE_LIMITED"}
    op = b["op"]
    if op in {"get", "find", "update", "delete", "resolve"} or b.get("references"):
        errors.add("NOT_FOUND")
    if (op == "create" and b.get("if_exists") != "return") or b.get("conflict_if"):
        errors.add("CONFLICT")
    if op == "convert" or b.get("unit_args"):
        errors.add("UNIT_MISMATCH")
    if b.get("realm"):
        errors.add("AUTH_EXPIRED")
    if b.get("requires_role"):
        errors.add("PERMISSION_DENIED")
    return tuple(sorted(errors))


def _description(inputs: GeneratorInputs, extra: str | None, effect: str, realm: str | None) -> str:
    cat = inputs.generator.catalog
    parts = [extra] if extra else []
    parts.append(cat.effect_sentences[effect])
    if realm:
        parts.append(cat.realm_sentence.format(realm=realm))
    return " ".join(parts)


def _endpoint(
    inputs: GeneratorInputs,
    *,
    route_id: str,
    summaries: dict[str, str],
    extra: str | None,
    effect: str,
    ins: tuple[FieldSpec, ...],
    outs: tuple[FieldSpec, ...],
    op: dict[str, Any],
) -> Endpoint:
    behavior = _complete_behavior(inputs, route_id, op, ins)
    missing = [lang for lang in inputs.languages if lang not in summaries]
    if missing:
        raise SchemaRouterError(f"{route_id}: no summary in {', '.join(missing)}")
    return Endpoint(
        route_id=route_id,
        name=route_id.replace(".", "_"),
        domain=route_id.split(".")[0],
        summary=summaries["en"],
        description=_description(inputs, extra, effect, behavior.get("realm")),
        summaries={lang: summaries[lang] for lang in inputs.languages},
        inputs=ins,
        outputs=outs,
        side_effect=effect,  # type: ignore[arg-type]
        errors=_errors(behavior),
        behavior=behavior,
    )


def _versioned(inputs: GeneratorInputs, route: str, version: int | None) -> str:
    return f"{route}.v{version or inputs.generator.default_version}"


def build_handwritten(inputs: GeneratorInputs) -> list[tuple[Endpoint, Provenance]]:
    built = []
    for d in inputs.endpoints.endpoints:
        route_id = _versioned(inputs, d.route, d.version)
        endpoint = _endpoint(
            inputs,
            route_id=route_id,
            summaries=d.summary,
            extra=d.description,
            effect=d.effect,
            ins=_inputs(inputs, d.in_),
            outs=_inputs(inputs, d.out),
            op=d.op,
        )
        built.append((endpoint, _handwritten_provenance(d, route_id)))
    return built


def _handwritten_provenance(d: EndpointDef, route_id: str) -> Provenance:
    return Provenance(
        route_id=route_id,
        base=d.route,
        origin="handwritten",
        role=d.role,
        verb=d.route.rsplit(".", 1)[-1],
        lookalike_of=d.lookalike_of,
        near_duplicate_of=d.near_duplicate_of,
    )


def _count_spec(r: ResourceDef, many_en: str) -> FieldSpec:
    return FieldSpec(
        name="count",
        json_type="integer",
        semantic_id=f"{r.domain}.{r.path}.count",
        description=f"Total number of {many_en}.",
    )


def _ids_spec(inputs: GeneratorInputs, r: ResourceDef, many_en: str) -> FieldSpec:
    id_def = inputs.fields[r.id_field]
    return FieldSpec(
        name=f"{field_name(inputs, r.id_field)}s",
        json_type="array",
        semantic_id=f"{id_def.semantic}.list",
        description=f"IDs of the {many_en}, newest first.",
    )


_Shape = tuple[tuple[FieldSpec, ...], tuple[FieldSpec, ...], dict[str, Any]]  # inputs, outputs, op


def _listing_shape(inputs: GeneratorInputs, name: str, r: ResourceDef, verb: str, many_en: str) -> _Shape:
    """list, count and search: a count (and the ids, but for count) of the resource's records."""
    outs: tuple[FieldSpec, ...] = (
        (_count_spec(r, many_en),)
        if verb == "count"
        else (_count_spec(r, many_en), _ids_spec(inputs, r, many_en))
    )
    exprs: dict[str, Any] = {"count": {"count": True}}
    if verb != "count":
        exprs[outs[-1].name] = {"ids": True}
    op = {"collection": name, "op": "list", "outputs": exprs}
    ins: tuple[FieldSpec, ...] = ()
    if verb == "list":
        ins = (field_spec(inputs, "limit", required=False),)
    if verb == "search":
        if not r.search_field:
            raise SchemaRouterError(f"spec/fields.yaml: resource {name} has search but no search_field")
        ins = (field_spec(inputs, "search_query"),)
        op["contains"] = {field_name(inputs, r.search_field): "query"}
    return ins, outs, op


def _status_shape(
    inputs: GeneratorInputs, name: str, r: ResourceDef, verb: str, id_spec: FieldSpec
) -> _Shape:
    """archive and restore: set the resource's status field (a conflict when it already holds it)."""
    if not r.status_field:
        raise SchemaRouterError(f"spec/fields.yaml: resource {name} has {verb} but no status_field")
    status = field_name(inputs, r.status_field)
    value = "archived" if verb == "archive" else "active"
    op = {
        "collection": name,
        "op": "update",
        "set": {status: {"const": value}},
        "conflict_if": {status: value},
    }
    return (id_spec,), (id_spec, field_spec(inputs, r.status_field)), op


def _created_shape(inputs: GeneratorInputs, name: str, verb: str) -> _Shape:
    """export and watch: create a record elsewhere (an export, a subscription) naming the resource."""
    if verb == "export":
        op: dict[str, Any] = {
            "op": "create",
            "collection": "exports",
            "id_field": "export_id",
            "id_prefix": "exp",
            "id_from": [],
            "store": [],
            "if_exists": "return",
            "set": {"resource": {"const": name}},
        }
        return (field_spec(inputs, "export_format", required=False),), (field_spec(inputs, "export_id"),), op
    op = {
        "op": "create",
        "collection": "subscriptions",
        "id_field": "subscription_id",
        "id_prefix": "sub",
        "set": {"resource": {"const": name}},
    }
    return (field_spec(inputs, "callback_url"),), (field_spec(inputs, "subscription_id"),), op


def _crud_shape(inputs: GeneratorInputs, name: str, r: ResourceDef, verb: str) -> _Shape:
    """The inputs, outputs and simulator op of one generated CRUD verb of a resource."""
    many_en = r.nouns["en"][1]
    id_spec = field_spec(inputs, r.id_field)
    if verb in {"list", "count", "search"}:
        return _listing_shape(inputs, name, r, verb, many_en)
    if verb == "get":
        outs = tuple(field_spec(inputs, k) for k in r.fields if k != r.id_field)
        return (id_spec,), outs, {"collection": name, "op": "get"}
    if verb in {"archive", "restore"}:
        return _status_shape(inputs, name, r, verb, id_spec)
    if verb == "delete":
        id_name = id_spec.name
        op = {
            "collection": name,
            "op": "delete",
            "outputs": {id_name: {"arg": id_name}, "deleted": {"const": True}},
        }
        return (id_spec,), (id_spec, field_spec(inputs, "deleted")), op
    if verb in {"export", "watch"}:
        return _created_shape(inputs, name, verb)
    raise SchemaRouterError(f"spec/fields.yaml: unknown verb {verb!r} for resource {name}")


def build_crud(inputs: GeneratorInputs, taken: set[str]) -> list[tuple[Endpoint, Provenance]]:
    built = []
    for name in sorted(inputs.resources):
        r = inputs.resources[name]
        archive_base = f"{r.domain}.{r.path}.archive" if "archive" in r.crud else None
        for verb in r.crud:
            base = f"{r.domain}.{r.path}.{verb}"
            if base in taken:
                raise SchemaRouterError(f"generated route {base} collides with a handwritten one")
            verb_def = inputs.generator.crud_verbs[verb]
            summaries = {
                lang: verb_def.summary[lang].format(one=r.nouns[lang][0], many=r.nouns[lang][1])
                for lang in inputs.languages
            }
            ins, outs, op = _crud_shape(inputs, name, r, verb)
            route_id = _versioned(inputs, base, None)
            endpoint = _endpoint(
                inputs,
                route_id=route_id,
                summaries=summaries,
                extra=verb_def.description.format(many=r.nouns["en"][1], one=r.nouns["en"][0]),
                effect=verb_def.effect,
                ins=ins,
                outs=outs,
                op=op,
            )
            lookalike = archive_base if verb == "delete" else None
            built.append(
                (endpoint, Provenance(route_id, base, "crud", "distractor", verb, lookalike_of=lookalike))
            )
    return built


def build_variants(
    inputs: GeneratorInputs, bases: list[tuple[Endpoint, Provenance]], count: int
) -> list[tuple[Endpoint, Provenance]]:
    """``count`` deprecated/beta twins of seeded picks among ``bases``, core routes first."""
    rng = random.Random(f"{inputs.seeds['catalog']}:variants")
    core = [b for b in bases if b[1].role == "core"]
    rest = [b for b in bases if b[1].role != "core"]
    rng.shuffle(core)
    rng.shuffle(rest)
    picks = (core + rest)[:count]
    n_deprecated = round(count * inputs.generator.catalog.deprecated_share)
    variants = []
    for index, (endpoint, prov) in enumerate(picks):
        kind = "deprecated" if index < n_deprecated else "beta"
        version = int(endpoint.route_id.rsplit(".v", 1)[1])
        route_id = (
            f"{prov.base}.v{version - 1}" if kind == "deprecated" else f"{prov.base}.v{version + 1}beta"
        )
        spec = inputs.generator.catalog.variants[kind]
        behavior = dict(endpoint.behavior)
        behavior["notice"] = spec.notice.format(successor=endpoint.name)
        summaries = {lang: spec.summary_prefix[lang] + s for lang, s in endpoint.summaries.items()}
        twin = endpoint.model_copy(
            update={
                "route_id": route_id,
                "name": route_id.replace(".", "_"),
                "summary": endpoint.summary if kind == "deprecated" else summaries["en"],
                "summaries": summaries,
                "deprecated": kind == "deprecated",
                "behavior": behavior,
            }
        )
        variants.append(
            (
                twin,
                replace(
                    prov, route_id=route_id, origin=kind, role="distractor", variant_of=endpoint.route_id
                ),
            )
        )
    return variants


def build_all(inputs: GeneratorInputs) -> tuple[list[Endpoint], dict[str, Provenance]]:
    """The full catalog's endpoints (sorted by route_id) and their provenance."""
    hand = build_handwritten(inputs)
    crud = build_crud(inputs, {p.base for _, p in hand})
    bases = hand + crud
    largest = inputs.generator.catalog.largest
    if len(bases) > largest:
        raise SchemaRouterError(f"{len(bases)} base endpoints exceed the catalog size {largest}")
    everything = bases + build_variants(inputs, bases, largest - len(bases))
    seen: dict[str, str] = {}
    for endpoint, _ in everything:
        for key in (endpoint.route_id, endpoint.name):
            if key in seen:
                raise SchemaRouterError(f"duplicate route or name {key!r}")
            seen[key] = key
    everything.sort(key=lambda pair: pair[0].route_id)
    return [e for e, _ in everything], {p.route_id: p for _, p in everything}
