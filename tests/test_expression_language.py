"""The behavior expression language: a dispatch table with a schema per kind, the JSON Schema derived from
it, every expression of the frozen catalogs valid under it, and a malformed one named in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from runtime.core.errors import SchemaRouterError
from runtime.simulator.expressions import (
    EXPRESSION_MAPS,
    KINDS,
    Context,
    ExpressionError,
    check_expressions,
    evaluate,
    expression_schema,
)
from runtime.simulator.world import World

REPO = Path(__file__).resolve().parents[1]


def _expressions() -> list[tuple[str, object]]:
    found = []
    for path in sorted((REPO / "catalogs" / "0.14").glob("catalog_*.json")):
        for endpoint in json.loads(path.read_text(encoding="utf-8"))["endpoints"]:
            for section in EXPRESSION_MAPS:
                for name, expr in (endpoint["behavior"].get(section) or {}).items():
                    found.append((f"{endpoint['route_id']}.{section}.{name}", expr))
    return found


def test_every_expression_of_the_frozen_catalogs_is_valid_and_every_kind_is_used() -> None:
    validator = Draft202012Validator(expression_schema())
    expressions = _expressions()
    assert len(expressions) > 100
    bad = [(where, e.message) for where, expr in expressions for e in validator.iter_errors(expr)]
    assert bad == []
    used = {next(iter(expr)) for _, expr in expressions if isinstance(expr, dict)}
    assert used <= set(KINDS)


@pytest.mark.parametrize(
    ("expr", "line"),
    [
        ({"hash_int": [1]}, "op.outputs.x: hash_int: [1] is too short"),
        ({"linear": {"x": {"arg": "a"}, "slop": 2}}, "op.outputs.x: linear: Additional properties"),
        ({"nope": 1}, "op.outputs.x: unknown expression kind 'nope' (known: arg, at_most,"),
        ({"arg": "a", "const": 1}, "op.outputs.x: an expression is an object with exactly one key"),
    ],
)
def test_a_malformed_expression_is_one_line_naming_its_place(expr: object, line: str) -> None:
    with pytest.raises(SchemaRouterError) as err:
        check_expressions("spec/endpoints.yaml: a.b.v1", {"outputs": {"x": expr}})
    assert str(err.value).startswith("spec/endpoints.yaml: a.b.v1: " + line.split(": ", 1)[0])
    assert line in str(err.value) and "\n" not in str(err.value)


def test_dispatch_evaluates_nested_kinds_and_refuses_an_unknown_one() -> None:
    world = World(world_id="w", salt="s", today="2026-01-01", fx_rates={}, collections={}, aliases={})
    ctx = Context(route_id="a.b.v1", args={"w": "72", "h": 180}, world=world)
    assert evaluate({"bmi": {"mass_kg": {"arg": "w"}, "height_cm": {"arg": "h"}}}, ctx, "bmi") == 22.2
    assert evaluate({"concat": ["id-", {"hash_int": [1, 1]}]}, ctx, "k") == "id-1"
    with pytest.raises(ExpressionError, match="unknown expression kind"):
        evaluate({"nope": 1}, ctx, "k")
