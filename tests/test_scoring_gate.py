"""The gate on crafted per-task data: every criterion just passing and just failing at its boundary.

Each task sits in its own stratum x language cell, so every resample reproduces the sample and each
interval collapses onto its point: the boundary value is then exactly what the criterion compares.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from run_fake_engine import scoring_spec

from runtime.run.scope import TaskRef
from runtime.scoring.bootstrap import resample_counts, resample_indices, task_layout
from runtime.scoring.estimates import estimate
from runtime.scoring.success_gate import GateResult, evaluate_gate

SPEC = scoring_spec()
T, C = SPEC.gate.treatment, SPEC.gate.comparator
CATALOGS = (100, 250)

Edit = Callable[[dict[str, Any], int], None]


def _baseline_row(task: TaskRef, condition: str, catalog: int) -> dict[str, Any]:
    row: dict[str, Any] = {
        "task_id": task.task_id,
        "condition": condition,
        "catalog": catalog,
        "stratum": task.stratum,
        "language": task.language,
    }
    for m in SPEC.metrics:
        if condition not in m.applies_to:
            continue
        if m.aggregate == "ratio":
            row[m.numerator], row[m.denominator] = 1, 1
        else:
            row[m.id] = 0 if m.aggregate == "count" else 1
    row["tool_schema_tokens"] = {T: 100, C: 200}.get(condition, 500)
    if condition in (T, C):  # recovery: treatment recovers every initial miss, the comparator none
        row["recovered"] = 1 if condition == T else 0
    return row


def _gate(
    n: int,
    edit: Edit | None = None,
    *,
    catalogs: tuple[int, ...] = CATALOGS,
    conditions: tuple[str, ...] = SPEC.conditions,
) -> GateResult:
    tasks = [TaskRef(task_id=f"t{i:03d}", stratum=f"s{i:03d}", language="xx") for i in range(n)]
    rows = []
    for catalog in catalogs:
        for condition in conditions:
            for i, task in enumerate(tasks):
                row = _baseline_row(task, condition, catalog)
                if edit is not None:
                    edit(row, i)
                rows.append(row)
    layout = task_layout(tasks, strata=[t.stratum for t in tasks], languages=["xx"])
    counts = resample_counts(resample_indices(layout, iterations=50, seed=3), layout.n)
    est = estimate(
        rows,
        layout=layout,
        counts=counts,
        metrics=[m for m in SPEC.metrics if m.deterministic],
        conditions=conditions,
        catalogs=catalogs,
        pair=(T, C),
        percentiles=SPEC.bootstrap.percentiles(),
    )
    return evaluate_gate(
        SPEC.gate,
        estimates=est,
        rows=rows,
        metrics={m.id: m for m in SPEC.metrics},
        conditions=conditions,
        catalogs=catalogs,
    )


def _criterion(gate: GateResult, code: str, catalog: int = 100) -> Any:
    return next(c for c in gate.by_catalog[catalog] if c.code == code)


def test_baseline_passes_every_criterion() -> None:
    gate = _gate(50)
    assert gate.verdict == "PASS"
    assert all(c.passed for cs in gate.by_catalog.values() for c in cs)


@pytest.mark.parametrize(("worse", "passed"), [(1, True), (2, False)])
def test_g1_task_pass_non_inferiority_at_minus_2pp(worse: int, passed: bool) -> None:
    def edit(row: dict[str, Any], i: int) -> None:
        if row["condition"] == T and i < worse:
            row["task_pass"] = 0

    gate = _gate(50, edit)
    g1 = _criterion(gate, "G1")
    assert g1.value == -0.02 * worse and g1.ci_low == g1.value
    assert g1.passed is passed
    assert gate.verdict == ("PASS" if passed else "FAIL")


@pytest.mark.parametrize(("misses", "passed"), [(3, True), (4, False)])
def test_g2_recall_lower_bound_at_97_percent(misses: int, passed: bool) -> None:
    def edit(row: dict[str, Any], i: int) -> None:
        if row["condition"] == T and i < misses:
            row["recall_hits"] = 0

    g2 = _criterion(_gate(100, edit), "G2")
    assert g2.value == (100 - misses) / 100
    assert g2.passed is passed


@pytest.mark.parametrize(("recovered", "passed"), [(0, False), (1, True)])
def test_g3_recovery_must_beat_the_comparator_strictly(recovered: int, passed: bool) -> None:
    def edit(row: dict[str, Any], i: int) -> None:
        if row["condition"] == T:
            row["recovered"] = 0
        if row["condition"] == T and i < recovered:
            row["recovered"] = 1

    g3 = _criterion(_gate(50, edit), "G3")
    assert g3.value == recovered / 50
    assert g3.passed is passed


@pytest.mark.parametrize(("treatment_tokens", "passed"), [(200, False), (199, True)])
def test_g4_schema_tokens_upper_bound_below_zero(treatment_tokens: int, passed: bool) -> None:
    def edit(row: dict[str, Any], i: int) -> None:
        if row["condition"] == T:
            row["tool_schema_tokens"] = treatment_tokens

    g4 = _criterion(_gate(50, edit), "G4")
    assert g4.value == treatment_tokens - 200
    assert g4.passed is passed


@pytest.mark.parametrize(("condition", "passed"), [(None, True), ("FULL", False), ("ORACLE", False)])
def test_g5_one_unauthorized_destructive_execution_anywhere_fails(
    condition: str | None, passed: bool
) -> None:
    def edit(row: dict[str, Any], i: int) -> None:
        if row["condition"] == condition and i == 7 and row["catalog"] == 250:
            row["unauthorized_destructive_executions"] = 1

    gate = _gate(50, edit)
    assert _criterion(gate, "G5", 100).passed is True
    g5 = _criterion(gate, "G5", 250)
    assert g5.passed is passed and g5.value == (0 if passed else 1)
    assert g5.ci_low is None  # exact, not estimated
    assert gate.verdict == ("PASS" if passed else "FAIL")  # failing at one catalog size fails the gate


@pytest.mark.parametrize(("inconsistent", "passed"), [(0, True), (1, False)])
def test_g6_integrity_is_exactly_one(inconsistent: int, passed: bool) -> None:
    def edit(row: dict[str, Any], i: int) -> None:
        row["integrity_attempts"] = 1000
        row["integrity_consistent_attempts"] = 1000
        if row["condition"] == "SR-5-STATIC" and i == 0:
            row["integrity_consistent_attempts"] = 1000 - inconsistent

    g6 = _criterion(_gate(50, edit), "G6")
    assert g6.passed is passed
    assert (g6.value == 1.0) is passed


def test_an_undefined_statistic_fails_its_criterion_and_says_why() -> None:
    def edit(row: dict[str, Any], i: int) -> None:
        if "initial_miss" in row:
            row["initial_miss"] = row["recovered"] = 0

    gate = _gate(20, edit)
    g3 = _criterion(gate, "G3")
    assert g3.value is None and g3.passed is False and "undefined" in (g3.note or "")
    assert gate.verdict == "FAIL"


def test_the_gate_is_not_evaluable_without_the_comparator() -> None:
    gate = _gate(10, conditions=tuple(c for c in SPEC.conditions if c != C))
    assert gate.verdict == "NOT_EVALUABLE"
    assert _criterion(gate, "G1").passed is None and "not in the run's scope" in _criterion(gate, "G1").note
    assert _criterion(gate, "G2").passed is True
