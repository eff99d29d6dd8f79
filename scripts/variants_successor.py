"""Turn a scratch copy's draft experiment into a protocol-variants successor (issue #25).

It edits ``<root>/spec/<experiment>/`` of a temporary copy, never the repository: the schemas admit
the variants (the conditions schema's policy enum written from the exposure registry), the protocol
names what each limit binds and which refresh variants the state-aware condition may use, a static
top-10 condition joins, the comparator is pinned to its own retriever, and (``blocked_fields``) the
state contract declares the three blocked-call fields. Then ``sr deviations --update`` lists every
difference, and each gets a rationale naming this script.

    .venv/bin/python scripts/variants_successor.py ROOT [--experiment 0.15] [--mode replace_keep]
        [--keep-top 2] [--keep-last] [--cursor] [--cap 15] [--blocked-fields]
        [--comparator-strategy text_concat]

With no variant option the state-aware condition stays 0.14's replace (the table's baseline).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import yaml

from runtime.exposure import policy_kinds
from runtime.spec_model.vocabulary import REFRESH_MODES
from runtime.state.items import ITEMS
from runtime.state.kinds import SHAPES
from runtime.state.sources import SOURCES

TREATMENT, COMPARATOR = "SR-5-STATE-AWARE", "SR-PROGRESSIVE-STATIC"
BLOCKED_FIELDS = {
    "last_attempted_route_id": (
        {"kind": "optional", "items": "route_id"},
        "The registered route ID of the last attempt, executed or blocked; null if none or unregistered.",
    ),
    "missing_input_semantic_ids": (
        {"kind": "set", "items": "semantic_id"},
        "The catalog's semantic IDs of the required inputs a MISSING_INPUT refusal named.",
    ),
    "attempt_count": ({"kind": "count"}, "Tool attempts so far, executed or blocked."),
}


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _write_yaml(path: Path, data: Any) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8")


def widen_schemas(spec: Path) -> None:
    """The successor's schemas admit what this issue adds (derived enums, never typed by hand)."""
    path = spec / "schema" / "conditions.schema.json"
    schema = _json(path)
    item = schema["properties"]["conditions"]["items"]["properties"]
    item["policy"]["enum"] = list(policy_kinds())
    refresh = item["refresh"]["properties"]
    refresh["mode"]["enum"] = list(REFRESH_MODES)
    refresh["cap"] = {"type": "integer", "minimum": 1, "description": "mode add: at most this many exposed."}
    refresh["cursor"] = {"type": "boolean", "description": "Page on repeated refreshes with the same input."}
    refresh["keep"] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "original_top": {"type": "integer", "minimum": 0},
            "last_attempted": {"type": "boolean"},
        },
    }
    item["params"] = {"type": "object", "description": "The policy kind's parameters."}
    item["retriever"] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["code"],
        "properties": {
            "code": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "params": {"type": "object"},
        },
    }
    _write_json(path, schema)
    path = spec / "schema" / "protocol.schema.json"
    schema = _json(path)
    conditions = schema["properties"]["conditions"]["properties"]
    conditions["binds"] = {
        "type": "object",
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
        "description": "Limit -> the conditions it binds; absent: every ranked condition.",
    }
    conditions["variants"] = {"type": "object", "description": "Condition -> the refresh variants allowed."}
    _write_json(path, schema)
    path = spec / "schema" / "state_contract.schema.json"
    schema = _json(path)
    field_type = schema["$defs"]["field_type"]
    field_type["properties"]["kind"]["enum"] = list(SHAPES)
    field_type["properties"]["items"]["enum"] = list(ITEMS)
    state_field = schema["$defs"]["state_field"]["properties"]
    state_field["source"] = {
        "enum": list(SOURCES),
        "description": "The typed fact the field is derived from.",
    }
    field_type["allOf"].append(
        {"if": {"properties": {"kind": {"const": "optional"}}}, "then": {"required": ["items"]}}
    )
    field_type["allOf"].append(
        {"if": {"properties": {"kind": {"const": "count"}}}, "then": {"maxProperties": 1}}
    )
    _write_json(path, schema)


def _refresh_description(refresh: dict[str, Any]) -> str:
    words = []
    if refresh["mode"] != "replace":
        words.append(f"mode {refresh['mode']}")
    if "cap" in refresh:
        words.append(f"cap {refresh['cap']} (the oldest exposed routes go first)")
    keep = refresh.get("keep") or {}
    if keep.get("original_top"):
        words.append(f"keep top {keep['original_top']} of the original query")
    if keep.get("last_attempted"):
        words.append("keep last attempted route if it was exposed")
    if refresh.get("cursor"):
        words.append("cursor: a repeated refresh with the same state shows the next page of its ranking")
    return "; ".join(words)


def make_successor(
    root: Path,
    *,
    experiment: str = "0.15",
    mode: str = "replace",
    keep_top: int = 0,
    keep_last: bool = False,
    cursor: bool = False,
    cap: int | None = None,
    blocked_fields: bool = False,
    comparator_strategy: str | None = "text_concat",
    static10: bool = True,
) -> Path:
    spec = root / "spec" / experiment
    widen_schemas(spec)
    protocol = _yaml(spec / "protocol.yaml")
    conditions = _yaml(spec / "conditions.yaml")
    ranked_ids = [c["id"] for c in conditions["conditions"] if "initial_k" in c]
    if static10:
        protocol["conditions"]["ids"].append("SR-10-STATIC")
        conditions["conditions"].append(
            {
                "id": "SR-10-STATIC",
                "code": "C6",
                "policy": "static_topk",
                "retrieval_query": "original",
                "initial_k": 10,
                "description": "One retrieval on the original query; its top 10 are exposed all episode.",
            }
        )
    # The seed's start at the top 5 binds the three SR-5 conditions; SR-10-STATIC is a wider static arm.
    protocol["conditions"]["binds"] = {"initial_k": ranked_ids}
    protocol["conditions"]["variants"] = {
        TREATMENT: {"modes": ["add", "replace_keep"], "cursor": True, "keep": True, "max_cap": 15}
    }
    for condition in conditions["conditions"]:
        if condition["id"] == TREATMENT:
            refresh = condition["refresh"]
            refresh["mode"] = mode
            if cap is not None:
                refresh["cap"] = cap
            if keep_top or keep_last:
                refresh["keep"] = {"original_top": keep_top, "last_attempted": keep_last}
            if cursor:
                refresh["cursor"] = True
            rules = _refresh_description(refresh)
            if rules:
                condition["description"] = f"{condition['description']} Refresh rules: {rules}."
        if condition["id"] == COMPARATOR and comparator_strategy:
            condition["retriever"] = {"code": comparator_strategy}
    if blocked_fields:
        contract = _yaml(spec / "state_contract.yaml")
        for name, (field_type, description) in BLOCKED_FIELDS.items():
            contract["allowed"].append({"name": name, "type": field_type, "description": description})
            protocol["state"]["allowed"].append({"name": name, "quote": f"(issue #25) {description}"})
        _write_yaml(spec / "state_contract.yaml", contract)
    _write_yaml(spec / "protocol.yaml", protocol)
    _write_yaml(spec / "conditions.yaml", conditions)
    _declare_deviations(root, experiment)
    return spec


def _declare_deviations(root: Path, experiment: str) -> None:
    from compiler.deviations import update_log, write_log
    from compiler.issues import SpecValidationError
    from schemarouter.application.behaviour import full_deviation_report
    from schemarouter.project import ProjectPaths

    paths = ProjectPaths.at(root).with_experiment(experiment)
    try:
        full_deviation_report(paths, update=True)  # the files' differences and the behavioural ones
    except SpecValidationError:
        update_log(paths)  # a successor the protocol refuses (a test's) cannot run its canaries
    log = _yaml(paths.spec_dir / "deviations.yaml")
    entries = [
        {
            **e,
            "rationale": e["rationale"]
            or "Protocol variant of issue #25, set by scripts/variants_successor.py.",
        }
        for e in log["deviations"]
        if e["kind"] != "stale"
    ]
    write_log(paths, entries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--experiment", default="0.15")
    parser.add_argument("--mode", default="replace", choices=["replace", "add", "replace_keep"])
    parser.add_argument("--keep-top", type=int, default=0)
    parser.add_argument("--keep-last", action="store_true")
    parser.add_argument("--cursor", action="store_true")
    parser.add_argument("--cap", type=int)
    parser.add_argument("--blocked-fields", action="store_true")
    parser.add_argument("--comparator-strategy", default="text_concat")
    args = parser.parse_args()
    spec = make_successor(
        args.root,
        experiment=args.experiment,
        mode=args.mode,
        keep_top=args.keep_top,
        keep_last=args.keep_last,
        cursor=args.cursor,
        cap=args.cap,
        blocked_fields=args.blocked_fields,
        comparator_strategy=args.comparator_strategy or None,
    )
    print(f"wrote the variants successor in {spec}")


if __name__ == "__main__":
    main()
