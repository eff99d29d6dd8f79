"""The generated catalogs and surface fit through the state boundary: legit typed data never violates it.

Skipped until `sr generate` has written catalogs/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.state import ContractViolation, ObservableState
from runtime.state.contract import is_name, is_unit
from runtime.state.guard import forbidden_item_in

CATALOGS = Path(__file__).resolve().parents[1] / "catalogs" / "0.14"
pytestmark = pytest.mark.skipif(
    not (CATALOGS / "catalog_500.json").exists() or not (CATALOGS / "surface.jsonl").exists(),
    reason="catalogs/ not generated yet",
)


def test_every_output_field_is_admissible_to_state() -> None:
    from runtime.catalog.io import load_catalog

    problems = []
    for endpoint in load_catalog(CATALOGS, 500).endpoints:
        if not is_name(endpoint.route_id) or forbidden_item_in(endpoint.route_id):
            problems.append(f"{endpoint.route_id}: route id")
        for f in endpoint.outputs:
            for what, value in (("name", f.name), ("semantic_id", f.semantic_id)):
                if not is_name(value) or forbidden_item_in(value):
                    problems.append(f"{endpoint.route_id}.{f.name}: {what} {value!r}")
            if f.unit is not None and not is_unit(f.unit):
                problems.append(f"{endpoint.route_id}.{f.name}: unit {f.unit!r}")
            for what, value in (("dimension", f.dimension), ("qualifier", f.qualifier)):
                if value is not None and (not is_name(value) or forbidden_item_in(value)):
                    problems.append(f"{endpoint.route_id}.{f.name}: {what} {value!r}")
    assert not problems, "\n".join(sorted(set(problems)))


def test_gold_plan_results_build_state_without_violation() -> None:
    from runtime.catalog.io import load_catalog
    from runtime.surface import execute_gold_plan, load_surface

    catalog = load_catalog(CATALOGS, 100)
    failures = []
    for task in load_surface(CATALOGS):
        calls, _world = execute_gold_plan(task, catalog)
        state = ObservableState.initial()
        try:
            for call in calls:
                state = state.after_result(call.result)
        except ContractViolation as err:
            failures.append(f"{task.task_id}: {err}")
            continue
        assert state.executed_route_ids, task.task_id
        assert task.query not in state.canonical_json()
    assert not failures, "\n".join(failures)
