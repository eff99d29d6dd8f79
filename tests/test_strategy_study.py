"""The strategy study: pilot surfaces only, figures consistent with the engine's metrics, a fixed rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.analysis.pilot import (
    RESEARCH_POLICY,
    DecisionPoint,
    EpisodeOutcome,
    PilotRun,
    StrategyChoice,
    condition_with_policy,
    engine_for,
    run_pilot,
)
from runtime.analysis.study import StrategyResult, Timing, choose
from runtime.analysis.study_markdown import study_markdown, table_rows
from runtime.core.errors import SchemaRouterError
from runtime.engine.episode import run_episode
from runtime.retrieval import RetrieverSpec
from schemarouter.application.retrieval_io import compiled_experiment
from schemarouter.application.strategy_study import run_study, strategy_catalogs
from schemarouter.application.surfaces import ChosenSurface, choose_surface
from schemarouter.project import ProjectPaths

ROOT = Path(__file__).resolve().parents[1]
PATHS = ProjectPaths.at(ROOT, experiment="0.14")


def test_the_evaluation_surface_is_refused() -> None:
    with pytest.raises(SchemaRouterError, match="pilot surface only"):
        run_study(PATHS, ChosenSurface())


def test_decision_points_are_the_metric_s_and_carry_the_transition() -> None:
    compiled = compiled_experiment(PATHS)
    tasks = sorted(
        choose_surface(PATHS, surface="dev", surface_file=None).tasks(PATHS), key=lambda t: t.task_id
    )
    tasks = tasks[::30]
    catalogs = strategy_catalogs(PATHS, RetrieverSpec.from_compiled(compiled), (100,))
    research = condition_with_policy(compiled, RESEARCH_POLICY)
    for code in ("text_concat", "typed_state"):
        choice = StrategyChoice(code, {}, code)
        resources = engine_for(compiled, catalogs, choice, tasks)
        run = run_pilot(resources, choice, tasks, conditions=(research,), sizes=(100,))
        for task in tasks:
            trace = run_episode(resources=resources, task=task, condition_id=research, catalog_size=100)
            points = [p for p in run.points if p.task_id == task.task_id]
            assert len(points) == trace.metrics["recall_decision_points"]
            assert sum(p.hit for p in points) == trace.metrics["recall_hits"]
            assert all(p.transition in ("ok", "error", "blocked") for p in points)
            assert all(p.state_text.startswith('{"executed_route_ids":') for p in points)


RESEARCH = "research-condition"


def _result(label: str, code: str, hits: int, total: int, p50: float) -> StrategyResult:
    point = DecisionPoint(label, RESEARCH, 100, "t", "s", "ok", "r", True, "q", "{}", (), False)
    miss = DecisionPoint(label, RESEARCH, 100, "t", "s", "ok", "r", False, "q", "{}", (), False)
    run = PilotRun(
        StrategyChoice(code, {}, label),
        [EpisodeOutcome(label, RESEARCH, 100, "t", True, False, False)],
        [point] * hits + [miss] * (total - hits),
    )
    return StrategyResult(run.choice, {}, run, {"state": Timing(p50, 1)}, research=RESEARCH)


def test_the_choice_rule() -> None:
    # Highest pooled Recall@5 wins outright beyond the tie margin.
    assert choose([_result("a", "text_concat", 10, 100, 1), _result("b", "hybrid", 50, 100, 9)]) == "b"
    # Within 0.01: no optional extra first, then the faster.
    assert choose([_result("h", "hybrid", 500, 1000, 1), _result("t", "typed_state", 495, 1000, 5)]) == "t"
    assert (
        choose([_result("t1", "typed_state", 500, 1000, 5), _result("t2", "text_concat", 495, 1000, 2)])
        == "t2"
    )


def test_a_small_study_renders_every_section() -> None:
    chosen = choose_surface(PATHS, surface="dev", surface_file=None)
    study = run_study(
        PATHS, chosen, repeats=1, ablations=False, codes=["typed_state"], sizes=(100,), task_limit=12
    )
    text = study_markdown(study)
    for heading in (
        "## 1. Static",
        "## 2. Recall@5",
        "## 3. Task pass",
        "## 4. Retrieval latency",
        "## 5. Ceilings",
    ):
        assert heading in text
    assert [r.choice.label for r in study.results] == ["text_concat", "typed_state"]
    typed = study.result("typed_state")
    pooled = typed.recall()
    assert f"{pooled.hits}/{pooled.total}" in text
    rows = table_rows(study)
    assert rows[-1][0].startswith("raw Tantivy") and len(rows) == 3
    bound = study.ceilings.protocol[100]
    assert bound.bound is not None and bound.bare <= bound.points and bound.best_hits <= bound.bare
    assert f"{bound.best_hits}/{bound.bare}" in text
