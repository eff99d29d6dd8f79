"""spec/retriever.yaml: valid against its schema and model, consistent with the conditions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from runtime.core.errors import SchemaRouterError
from runtime.retrieval import RetrieverSpec, parse_retriever_spec
from runtime.spec_model.conditions import ConditionLimitsSpec

ROOT = Path(__file__).resolve().parents[1]
RAW = yaml.safe_load((ROOT / "spec" / "0.14" / "retriever.yaml").read_text(encoding="utf-8"))
SCHEMA = json.loads((ROOT / "spec" / "0.14" / "schema" / "retriever.schema.json").read_text(encoding="utf-8"))


def _objects(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node:
            found.append(node)
        for value in node.values():
            found.extend(_objects(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_objects(value))
    return found


def test_schema_is_draft_2020_12_and_closed() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    objects = _objects(SCHEMA)
    assert objects and all(o.get("additionalProperties") is False for o in objects)


def test_spec_file_is_valid() -> None:
    jsonschema.Draft202012Validator(SCHEMA).validate(RAW)
    spec = parse_retriever_spec(RAW)
    assert spec.depth.progressive == 30


def test_schema_and_model_agree_on_sources() -> None:
    from typing import get_args

    from runtime.spec_model.retriever import Source

    enum = SCHEMA["$defs"]["field"]["properties"]["sources"]["items"]["enum"]
    assert set(enum) == set(get_args(Source))
    assert not any("behavior" in s for s in enum)


def test_depths_match_the_conditions() -> None:
    conditions = yaml.safe_load((ROOT / "spec" / "0.14" / "conditions.yaml").read_text(encoding="utf-8"))
    limits = ConditionLimitsSpec.model_validate(conditions["limits"])
    assert parse_retriever_spec(RAW).conditions_drift(limits) == []
    drifted = limits.model_copy(update={"max_refresh_per_episode": 4})
    assert parse_retriever_spec(RAW).conditions_drift(drifted) == [
        "retriever.depth.progressive 30 != 25 (5 + 5x5)"
    ]


def test_every_endpoint_part_the_issue_names_is_indexed() -> None:
    sources = {s for f in parse_retriever_spec(RAW).fields for s in f.sources}
    assert {"name", "description", "inputs.name", "outputs.name", "errors"} <= sources
    assert {"inputs.semantic_id", "outputs.semantic_id", "inputs.unit", "outputs.unit"} <= sources
    assert {f"summaries.{lang}" for lang in ("es", "de", "ko", "ja", "zh")} <= sources


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"fields": [{"id": "x", "sources": ["behavior"], "analyzer": "identifier", "boost": 1}]}, "sources"),
        (
            {"fields": [{"id": "x", "sources": ["name"], "analyzer": "nope", "boost": 1}]},
            "undefined analyzers",
        ),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_specs_are_clean_errors(change: dict[str, Any], needle: str) -> None:
    with pytest.raises(SchemaRouterError, match=needle):
        parse_retriever_spec({**RAW, **change})


def test_from_compiled_reads_the_raw_section() -> None:
    from schemarouter.application.retrieval_io import compiled_experiment
    from schemarouter.project import ProjectPaths

    compiled = compiled_experiment(ProjectPaths.at(ROOT))
    with_raw = compiled.model_copy(update={"raw": {"retriever": RAW}})
    assert RetrieverSpec.from_compiled(with_raw) == parse_retriever_spec(RAW)
    with pytest.raises(SchemaRouterError, match="no retriever section"):
        RetrieverSpec.from_compiled(compiled.model_copy(update={"raw": {}}))
