"""Each spec vocabulary is stated once (runtime/spec_model/vocabulary.py); everything else must match."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest

from runtime.exposure.registry import policy_kinds
from runtime.scoring import success_gate as gate
from runtime.spec_model import vocabulary as v
from runtime.spec_model.conditions import RefreshSpec
from runtime.spec_model.gates import GateCriterionSpec
from runtime.spec_model.metrics import MetricSpec
from schemarouter.project import experiment_ids

REPO = Path(__file__).resolve().parents[1]


def _enum(schema: dict[str, Any], *path: str) -> list[str]:
    node: Any = schema
    for key in path:
        node = node[key]
    return list(node["enum"])


def test_the_models_use_the_vocabulary() -> None:
    for model in (GateCriterionSpec,):
        fields = model.model_fields
        assert get_args(fields["compare"].annotation) == v.COMPARES
        assert get_args(fields["statistic"].annotation) == v.STATISTICS
        assert get_args(fields["operator"].annotation) == v.OPERATORS
    assert get_args(MetricSpec.model_fields["aggregate"].annotation) == v.AGGREGATES
    assert get_args(RefreshSpec.model_fields["mode"].annotation) == v.REFRESH_MODES


def test_the_implementations_cover_exactly_the_vocabulary() -> None:
    assert tuple(gate.OPERATORS) == v.OPERATORS
    assert set(v.EXACT_STATISTICS) <= set(v.STATISTICS)


def test_report_schema_lists_the_vocabulary() -> None:
    schema = json.loads((REPO / "runtime" / "scoring" / "report.schema.json").read_text(encoding="utf-8"))
    text = json.dumps(schema)
    for words in (v.COMPARES, v.STATISTICS, v.OPERATORS):
        assert json.dumps(list(words)) in text


@pytest.mark.parametrize("experiment", experiment_ids(REPO))
def test_each_experiments_schemas_list_the_vocabulary(experiment: str) -> None:
    """A frozen schema is never rewritten, so this holds as long as the vocabulary only grows."""
    schemas = REPO / "spec" / experiment / "schema"
    gates = json.loads((schemas / "gates.schema.json").read_text(encoding="utf-8"))
    text = json.dumps(gates)
    for words in (v.COMPARES, v.STATISTICS, v.OPERATORS):
        assert json.dumps(list(words)) in text
    conditions = json.loads((schemas / "conditions.schema.json").read_text(encoding="utf-8"))
    item = conditions["properties"]["conditions"]["items"]["properties"]
    # The policy enum is derived from the exposure registry: a frozen schema equals it as it was, a
    # draft's is written from it (compiler/successor.py); either way it is exactly the registry's kinds.
    assert item["policy"]["enum"] == list(policy_kinds())
    modes = item["refresh"]["properties"]["mode"]["enum"]
    assert set(modes) <= set(v.REFRESH_MODES)
