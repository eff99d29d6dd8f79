"""The committed catalogs: nesting, names, localized summaries, distractor kinds, realistic schemas."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from runtime.catalog.io import load_catalog

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = ROOT / "catalogs" / "0.14"
LANGUAGES = {"en", "es", "de", "ko", "ja", "zh"}


def test_catalogs_nest_and_are_sorted():
    c100, c250, c500 = (load_catalog(CATALOGS, n) for n in (100, 250, 500))
    ids = [{e.route_id for e in c.endpoints} for c in (c100, c250, c500)]
    assert [len(s) for s in ids] == [100, 250, 500]
    assert ids[0] < ids[1] < ids[2]
    for c in (c100, c250, c500):
        assert [e.route_id for e in c.endpoints] == sorted(e.route_id for e in c.endpoints)
    full = c500.by_route()
    assert all(full[e.route_id] == e for e in c100.endpoints)


def test_names_are_valid_openai_function_names_and_unique():
    c500 = load_catalog(CATALOGS, 500)
    names = [e.name for e in c500.endpoints]
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", n) for n in names)


def test_every_endpoint_has_six_summaries_and_a_rendered_schema():
    contract = yaml.safe_load((ROOT / "spec" / "0.14" / "state_contract.yaml").read_text(encoding="utf-8"))
    for e in load_catalog(CATALOGS, 500).endpoints:
        assert set(e.summaries) == LANGUAGES and all(e.summaries.values())
        assert set(e.errors) <= set(contract["error_classes"])
        schema = e.tool_schema()
        assert schema["function"]["name"] == e.name
        assert set(schema["function"]["parameters"]["properties"]) == {f.name for f in e.inputs}
        assert "behavior" not in e.tool_schema_json()


def test_catalog_variety_domains_and_every_distractor_kind():
    provenance = json.loads((CATALOGS / "provenance.json").read_text(encoding="utf-8"))["routes"]
    c500 = load_catalog(CATALOGS, 500)
    assert len({e.domain for e in c500.endpoints}) >= 15
    kinds = {k for p in provenance.values() for k in p["distractor_kinds"]}
    assert {
        "destructive_lookalike",
        "deprecated_version",
        "near_duplicate_name",
        "same_output_other_inputs",
    } <= kinds
    lookalikes = [
        e for e in c500.endpoints if e.side_effect == "destructive" and provenance[e.route_id]["lookalike_of"]
    ]
    assert any(provenance[e.route_id]["lookalike_of"].endswith(".archive") for e in lookalikes)
    assert any(e.deprecated for e in c500.endpoints)


def test_same_verb_in_another_domain_exists_per_task():
    from runtime.surface import load_surface

    tasks = load_surface(CATALOGS)
    assert any(t.hidden.distractors.get("same_verb_other_domain") for t in tasks)
    assert all(t.hidden.hazards.destructive_routes for t in tasks)


def test_manifest_hashes_every_generated_file():
    import hashlib

    manifest = json.loads((CATALOGS / "manifest.json").read_text(encoding="utf-8"))
    for rel, entry in manifest["files"].items():
        assert hashlib.sha256((CATALOGS / rel.split("/", 1)[1]).read_bytes()).hexdigest() == entry["sha256"]
    assert "catalogs/surface.jsonl" in manifest["files"]
