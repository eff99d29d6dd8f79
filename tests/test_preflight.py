"""`sr preflight` and the freeze that runs it: protocol bounds, minimum detectable differences, verdicts.

The verdict logic and the MDD simulation are tested on constructed inputs whose answers are known; the
pilot-backed parts on temporary copies of the project (a draft successor for the freeze), with the
pilot narrowed to one catalog size and one stratum so the suite stays quick. Nothing here touches the
repository's spec/, catalogs/ or runs/.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_dev_surface import experiments_copy
from typer.testing import CliRunner

from runtime.core.errors import SchemaRouterError
from runtime.scoring.bootstrap import TaskLayout, resample_counts, resample_indices
from runtime.scoring.estimates import estimate
from runtime.scoring.feasibility import (
    Bound,
    assess,
    minimum_detectable_difference,
    simulated_surfaces,
    verdict,
    worst,
)
from runtime.scoring.protocol_bounds import (
    BarePoints,
    best_at_bare,
    nothing_beyond_query,
    recovery_ceiling,
    task_pass_ceiling,
)
from runtime.scoring.spec import ScoringSpec
from runtime.spec_model.experiment import BootstrapSpec
from runtime.spec_model.gates import GateCriterionSpec, GateSpec
from runtime.spec_model.lock import lock_json, read_lock
from runtime.spec_model.metrics import MetricSpec
from schemarouter.application.freeze import FreezeRequest, freeze_experiment
from schemarouter.application.preflight import PreflightRequest, run_preflight
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # pilots: scheduled first (tests/conftest.py)

REPO = Path(__file__).resolve().parents[1]
NARROW = PreflightRequest(catalogs="100", tasks="S1", workers=1, simulations=40)


def _criterion(compare: str, operator: str, threshold: float, metric: str = "task_pass") -> GateCriterionSpec:
    return GateCriterionSpec(
        rationale="r",
        code="GX",
        title="t",
        metric=metric,
        compare=compare,
        statistic="ci_low" if operator in (">=", ">") else "ci_high",
        operator=operator,
        threshold=threshold,
    )


# --- verdicts -------------------------------------------------------------------------------------


def test_a_bound_below_the_threshold_is_unreachable_with_the_bound_named() -> None:
    g2 = _criterion("treatment", ">=", 0.97, "next_tool_recall_at_5")
    assert verdict(g2, Bound(0.62, "b"), None) == ("unreachable", "bound 0.62 < 0.97")
    assert verdict(g2, Bound(0.99, "b"), None) == ("reachable", "")
    assert verdict(g2, Bound(0.97, "b"), None) == ("reachable", "")  # on the threshold: >= holds
    assert verdict(g2, None, None) == ("reachable", "")  # no bound set by the protocol


def test_a_difference_whose_mdd_exceeds_the_room_is_underpowered() -> None:
    g1 = _criterion("difference", ">=", -0.02)
    assert verdict(g1, Bound(0.10, "b"), 0.30) == ("underpowered", "MDD 0.3 > bound 0.1")
    assert verdict(g1, Bound(0.10, "b"), 0.05) == ("reachable", "")
    assert verdict(g1, Bound(-0.05, "b"), 0.05)[0] == "unreachable"  # the bound decides first
    assert verdict(g1, Bound(0.10, "b"), None)[0] == "underpowered"  # undefined on the surfaces
    lower = _criterion("difference", "<", 0.0)
    assert verdict(lower, Bound(-10.0, "b"), -50.0) == ("underpowered", "MDD -50 < bound -10")
    assert verdict(lower, Bound(-10.0, "b"), -5.0) == ("reachable", "")
    assert worst(["reachable", "underpowered", "reachable"]) == "underpowered"
    assert worst(["underpowered", "unreachable"]) == "unreachable"


# --- the MDD simulation ---------------------------------------------------------------------------


def _spec(tasks_per_cell: int, iterations: int = 400) -> ScoringSpec:
    metric = MetricSpec(
        level="task",
        definition="d",
        id="task_pass",
        title="t",
        unit="u",
        aggregate="mean",
        applies_to=("T", "C"),
        better="higher",
    )
    return ScoringSpec(
        experiment_id="x",
        catalog_sizes=(100,),
        conditions=("T", "C"),
        condition_codes=("C1", "C2"),
        strata=("s1", "s2"),
        stratum_codes=("S1", "S2"),
        languages=("en",),
        tasks_per_cell=tasks_per_cell,
        metrics=(metric,),
        gate=GateSpec(
            treatment="T",
            comparator="C",
            rule="all_criteria_all_catalogs",
            interval="percentile",
            criteria=(_criterion("difference", ">=", -0.02),),
        ),
        bootstrap=BootstrapSpec(
            method="stratified_task_cluster",
            cluster="task",
            strata=("stratum", "language"),
            iterations=iterations,
            seed=7,
            rng="numpy.random.Generator(PCG64)",
            interval="percentile",
            confidence=0.95,
            paired=True,
        ),
    )


def _pilot(per_cell: int) -> tuple[list[dict[str, object]], TaskLayout]:
    """Two cells of ``per_cell`` tasks; the treatment passes the even tasks, the comparator every third."""
    rows, ids, ranges = [], [], []
    for stratum in ("s1", "s2"):
        start = len(ids)
        for j in range(per_cell):
            task = f"{stratum}-{j:02d}"
            ids.append(task)
            for condition, passed in (("T", j % 2 == 0), ("C", j % 3 == 0)):
                rows.append(
                    {"task_id": task, "condition": condition, "catalog": 100, "task_pass": int(passed)}
                )
        ranges.append((start, len(ids)))
    return rows, TaskLayout(tuple(ids), (("s1", "en"), ("s2", "en")), tuple(ranges))


def _pass_share(rows, spec: ScoringSpec, layout: TaskLayout, delta: float, sims: int) -> float:
    """The share of simulated surfaces on which the gate's statistic passes after shifting the centred
    treatment by ``delta``, computed the long way: a shifted row set and a bootstrap per surface."""
    by_key = {(r["task_id"], r["condition"]): r for r in rows}
    mean = {c: sum(r["task_pass"] for r in rows if r["condition"] == c) / layout.n for c in ("T", "C")}
    shift = delta - (mean["T"] - mean["C"])
    sim_layout, draws = simulated_surfaces(layout, spec.tasks_per_cell, sims, 20261202)
    counts = resample_counts(
        resample_indices(sim_layout, iterations=spec.bootstrap.iterations, seed=spec.bootstrap.seed),
        sim_layout.n,
    )
    passed = 0
    for draw in draws:
        sim = []
        for p, source in enumerate(draw):
            for condition in ("T", "C"):
                row = dict(by_key[(layout.task_ids[source], condition)])
                row["task_id"] = sim_layout.task_ids[p]
                if condition == "T":
                    row["task_pass"] = row["task_pass"] + shift
                sim.append(row)
        found = estimate(
            sim,
            layout=sim_layout,
            counts=counts,
            metrics=list(spec.metrics),
            conditions=["T", "C"],
            catalogs=[100],
            pair=("T", "C"),
            percentiles=spec.bootstrap.percentiles(),
        )
        low = found.differences[100]["task_pass"].ci_low
        passed += low is not None and low >= -0.02 - 1e-9
    return passed / sims


def test_the_mdd_is_where_the_shifted_statistic_passes_on_80_percent_of_surfaces() -> None:
    rows, layout = _pilot(12)
    spec = _spec(tasks_per_cell=6)
    sims = 60
    mdd = minimum_detectable_difference(
        rows, spec=spec, layout=layout, criterion=spec.gate.criteria[0], catalog=100, simulations=sims
    )
    assert mdd is not None and 0.0 < mdd < 1.0
    assert _pass_share(rows, spec, layout, mdd + 1e-6, sims) >= 0.8
    assert _pass_share(rows, spec, layout, mdd - 0.02, sims) < 0.8
    again = minimum_detectable_difference(
        rows, spec=spec, layout=layout, criterion=spec.gate.criteria[0], catalog=100, simulations=sims
    )
    assert again == mdd  # named seeds: the same inputs give the same MDD


def test_fewer_tasks_per_cell_need_a_larger_difference_and_can_leave_a_criterion_underpowered() -> None:
    rows, layout = _pilot(12)
    many = _spec(tasks_per_cell=40)
    few = _spec(tasks_per_cell=2)
    c = many.gate.criteria[0]
    kw = {"rows": rows, "layout": layout, "criterion": c, "catalog": 100, "simulations": 60}
    mdd_many = minimum_detectable_difference(spec=many, **kw)
    mdd_few = minimum_detectable_difference(spec=few, **kw)
    assert mdd_many is not None and mdd_few is not None and mdd_few > mdd_many
    room = {("GX", 100): Bound((mdd_many + mdd_few) / 2, "constructed")}
    common = {"layout": layout, "intervals": {}, "bounds": room, "catalogs": [100], "simulations": 60}
    (powered,) = assess(rows, spec=many, **common)
    (under,) = assess(rows, spec=few, **common)
    assert powered.verdict == "reachable" and under.verdict == "underpowered"
    assert under.detail.startswith("MDD ") and "> bound" in under.detail


# --- protocol bounds ------------------------------------------------------------------------------


def test_nothing_beyond_the_query_is_every_fact_field_empty() -> None:
    facts = ("executed_route_ids", "observed_field_names", "stable_identifiers")
    blocked = {"executed_route_ids": [], "observed_field_names": [], "stable_identifiers": []}
    blocked |= {"last_execution_status": "blocked", "last_error_class": "UNEXPOSED", "task_incomplete": True}
    assert nothing_beyond_query(blocked, facts)
    assert not nothing_beyond_query({**blocked, "observed_field_names": ["lat"]}, facts)
    assert not nothing_beyond_query({**blocked, "executed_route_ids": ["geo.v1"]}, facts)


def test_the_recall_bound_counts_bare_points_at_the_best_strategy_and_the_rest_at_one() -> None:
    best = best_at_bare(100, 40, {"b (query)": 8, "a (query)": 8, "c (query+state)": 3})
    assert best == BarePoints(100, 40, 8, "a (query)")  # ties by label
    assert best.bound == pytest.approx((60 + 8) / 100)
    assert best.share == 0.4 and best.best_recall == 0.2
    assert BarePoints(0, 0, 0, "none").bound is None


def test_task_pass_and_recovery_ceilings_come_from_the_ceiling_conditions() -> None:
    rows = [
        {"task_id": "a", "condition": "FULL", "catalog": 1, "task_pass": 1},
        {"task_id": "b", "condition": "FULL", "catalog": 1, "task_pass": 0},
        {"task_id": "a", "condition": "ORACLE", "catalog": 1, "task_pass": 0},
        {"task_id": "b", "condition": "ORACLE", "catalog": 1, "task_pass": 0},
        {"task_id": "a", "condition": "T", "catalog": 1, "task_pass": 0, "initial_miss": 0},
        {"task_id": "b", "condition": "T", "catalog": 1, "task_pass": 0, "initial_miss": 1},
    ]
    assert task_pass_ceiling(rows, ["FULL", "ORACLE"], 1, "task_pass") == 0.5
    assert (
        recovery_ceiling(rows, ["FULL", "ORACLE"], "T", 1, pass_metric="task_pass", missed="initial_miss")
        == 0
    )


def test_the_recovery_bound_needs_a_ratio_and_a_mean_redefinition_gets_none_not_a_guess() -> None:
    """G3's bound counts the treatment's initial misses through the ratio's denominator. A successor
    that redefines the metric as a mean has no denominator: the criterion gets no bound."""
    from schemarouter.application.preflight import _bounds

    rows = [
        {"task_id": "a", "condition": "FULL", "catalog": 100, "task_pass": 1},
        {"task_id": "a", "condition": "T", "catalog": 100, "task_pass": 0, "initial_miss": 1},
        {"task_id": "a", "condition": "C", "catalog": 100, "task_pass": 0, "initial_miss": 1},
    ]
    report = {"metrics": {"C": {"100": {"initial_miss_recovery": {"point": 0.25}}}}}
    base = _spec(tasks_per_cell=1, iterations=10)
    g3 = _criterion("difference", ">=", 0.1, metric="initial_miss_recovery")
    gate = base.gate.model_copy(update={"criteria": (g3,)})
    common = {"level": "task", "definition": "d", "id": "initial_miss_recovery", "title": "t", "unit": "u"}
    ratio = MetricSpec(
        **common,
        aggregate="ratio",
        numerator="recovered",
        denominator="initial_miss",
        applies_to=("T", "C"),
        better="higher",
    )
    mean = MetricSpec(**common, aggregate="mean", applies_to=("T", "C"), better="higher")
    for metric, expected in ((ratio, 0.75), (mean, None)):
        spec = base.model_copy(update={"metrics": (metric,), "gate": gate})
        bounds = _bounds(spec, report, rows, {}, ["FULL"], [100])
        found = bounds.get(("GX", 100))
        assert (found.value if found else None) == expected, metric.aggregate


# --- the lock: an optional record that leaves every existing lock's bytes alone --------------------


def test_a_lock_without_a_preflight_is_written_back_byte_for_byte() -> None:
    path = REPO / "spec" / "0.14" / "freeze.lock"
    lock = read_lock(path, display="spec/0.14/freeze.lock")
    assert lock is not None and lock.preflight is None
    assert lock_json(lock) == path.read_text(encoding="utf-8")
    assert '"preflight"' not in path.read_text(encoding="utf-8")


# --- pilots on temporary copies -------------------------------------------------------------------


def _sr(root: Path, *args: str):
    return CliRunner().invoke(app, ["--project-dir", str(root), *args], terminal_width=200)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _successor_copy(tmp_path: Path) -> Path:
    """0.14 (frozen) and the draft successor 0.15 with the named surfaces."""
    root = experiments_copy(tmp_path, "0.15")
    for top in ("spec", "catalogs"):
        shutil.copytree(REPO / top / "0.14", root / top / "0.14")
    shutil.copytree(REPO / "catalogs" / "_surfaces" / "dev" / "0.14", root / "catalogs/_surfaces/dev/0.14")
    return root


def test_a_preflight_on_0_14_finds_g2_unreachable_and_writes_nothing_into_spec(tmp_path: Path) -> None:
    root = experiments_copy(tmp_path)
    spec_before = {k: v for k, v in _snapshot(root).items() if k.startswith("spec/")}
    pre = run_preflight(ProjectPaths.at(root, experiment="0.14"), NARROW)
    assert pre.unreachable() == ["G2"]
    (g2,) = [r for r in pre.rows if r.code == "G2"]
    assert g2.bound is not None and g2.bound.value < 0.97
    assert pre.verdicts()["G2"].startswith(f"unreachable (bound {g2.bound.value:.4g} < 0.97)")
    assert "carry nothing beyond the query" in g2.bound.basis
    assert {k: v for k, v in _snapshot(root).items() if k.startswith("spec/")} == spec_before
    assert pre.run_dir.parent == root / "runs" and (pre.run_dir / "report.json").is_file()
    assert json.loads((pre.run_dir / "report.json").read_text())["pilot"]["surface"] == "dev"


def test_freeze_refuses_an_unreachable_criterion_and_records_the_accepted_reason(tmp_path: Path) -> None:
    root = _successor_copy(tmp_path)
    paths = ProjectPaths.at(root, experiment="0.15")
    parent_lock = (root / "spec" / "0.14" / "freeze.lock").read_bytes()
    shown: list[str] = []
    with pytest.raises(SchemaRouterError) as refused:
        freeze_experiment(paths, FreezeRequest(reason="for review", preflight=NARROW), show=shown.extend)
    message = str(refused.value)
    assert len(message.splitlines()) == 1
    assert "spec/0.15/gates.yaml: G2 unreachable (bound" in message and "--accept-infeasible" in message
    assert not paths.lock_file.exists() and any("G2" in line for line in shown)

    done = freeze_experiment(
        paths,
        FreezeRequest(
            reason="for review", accept_infeasible="G2 kept as the seed fixed it", preflight=NARROW
        ),
    )
    lock = read_lock(paths.lock_file, display="spec/0.15/freeze.lock")
    assert lock is not None and lock.preflight is not None and done.preflight is not None
    assert lock.preflight.accepted_infeasible == "G2 kept as the seed fixed it"
    assert lock.preflight.verdicts["G2"].startswith("unreachable (bound")
    assert {c.code for c in lock.preflight.criteria} == {"G1", "G2", "G3", "G4", "G5", "G6"}
    assert lock.preflight.run_id == done.preflight.run_id
    verified = _sr(root, "verify", "--all")
    assert verified.exit_code == 0, verified.output
    assert (root / "spec" / "0.14" / "freeze.lock").read_bytes() == parent_lock


def test_a_preflight_without_a_dev_surface_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    shutil.copyfile(REPO / "schemarouter.yaml", root / "schemarouter.yaml")
    for top in ("spec", "catalogs"):
        shutil.copytree(REPO / top / "0.14", root / top / "0.14")
    before = _snapshot(root)
    result = _sr(root, "preflight", "--experiment", "0.14")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.splitlines() == [
        "experiment 0.14: no dev surface in this project (spec/_surfaces/dev/): sr preflight measures "
        "the gate on it; nothing was written"
    ]
    assert _snapshot(root) == before and not (root / "runs").exists()


def test_a_preflight_with_a_missing_catalog_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    root = _successor_copy(tmp_path)
    (root / "catalogs" / "0.15" / "catalog_250.json").unlink()
    before = _snapshot(root)
    result = _sr(root, "preflight", "--experiment", "0.15")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.splitlines() == [
        "catalogs/0.15/catalog_250.json: missing; the preflight runs every catalog size "
        "(sr generate --experiment 0.15); nothing was written"
    ]
    assert not (root / "runs").exists()
    assert {k: v for k, v in _snapshot(root).items() if not k.startswith("build/")} == before


def test_a_preflight_on_the_evaluation_surface_is_refused(tmp_path: Path) -> None:
    root = experiments_copy(tmp_path)
    result = _sr(root, "preflight", "--experiment", "0.14", "--surface", "evaluation")
    assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1
    assert "a preflight runs on a pilot surface only" in result.stderr
    assert not (root / "runs").exists()


def test_accept_infeasible_needs_a_reason(tmp_path: Path) -> None:
    root = _successor_copy(tmp_path)
    result = _sr(root, "freeze", "-e", "0.15", "--reason", "x", "--accept-infeasible", " ")
    assert result.exit_code == 1 and "--accept-infeasible needs a reason" in result.stderr
    assert not (root / "spec" / "0.15" / "freeze.lock").exists()
