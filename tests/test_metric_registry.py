"""The metric registry: one registered function per metric of the experiment's metrics.yaml, values in
registration order, and a new metric added without editing any central file."""

from __future__ import annotations

from pathlib import Path

import pytest
from registry_support import scratch

from compiler import compile_project
from runtime.core.errors import SchemaRouterError
from runtime.engine.metrics import registry
from runtime.engine.metrics.registry import EpisodeView, metric, registered_metrics
from runtime.engine.trace import read_trace
from schemarouter.project import ProjectPaths

REPO = Path(__file__).resolve().parents[1]


def test_every_metric_of_the_spec_has_exactly_one_registered_function() -> None:
    compiled = compile_project(ProjectPaths.at(REPO), write_manifest=False)
    spec_ids = [m.id for m in compiled.metrics]
    registered = [m.id for m in registered_metrics()]
    assert registered[: len(spec_ids)] == spec_ids  # the spec's order is the recorded order
    assert len(set(registered)) == len(registered)


def test_components_are_declared_by_their_ratio_metric() -> None:
    by_id = {m.id: m for m in registered_metrics()}
    assert by_id["next_tool_recall_at_5"].components == ("recall_hits", "recall_decision_points")
    assert by_id["initial_miss_recovery"].components == ("initial_miss", "recovered")
    assert by_id["task_pass"].components == ()


def test_a_new_metric_registers_where_it_is_defined_and_is_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    from runtime.engine.metrics import episode_metrics
    from runtime.surface import load_surface

    scratch(monkeypatch, registry.METRICS)

    @metric("final_answer_turns")
    def final_answer_turns(view: EpisodeView) -> int:
        return sum(1 for t in view.turns if t.decision.kind == "final_answer")

    task = load_surface(REPO / "catalogs" / "0.14")[0]
    trace = read_trace(
        {
            "trace_version": 2, "task_id": task.task_id, "stratum": "S1", "language": "en",
            "condition": "FULL", "catalog": 100, "agent": "reference", "tokenizer": "cl100k_base",
            "catalog_digest": None, "exposures": [["a.b.v1"]], "initial_exposure": 0,
            "turns": [{"turn": 1, "exposure": 0, "ranking_top5": None, "retrieval_calls": [],
                       "schema_tokens": 3, "input_tokens": 5, "decision": {"kind": "final_answer"},
                       "audit": None, "result": None, "state_after": None}],
            "ended_by": "final_answer", "passed": False, "milestones_reached": 1, "milestones_total": 2,
            "check_reasons": ["not all milestones"], "metrics": {}, "wall_latency_ms": 1.0,
        }
    )  # fmt: skip
    named = [m.id for m in registered_metrics()]
    values = episode_metrics(
        task=task, trace=trace, ranks=False, catalog=_NoRoutes(), wall_ms=1.0, metric_ids=named
    )
    assert list(values)[-1] == "final_answer_turns" and values["final_answer_turns"] == 1
    without = episode_metrics(
        task=task, trace=trace, ranks=False, catalog=_NoRoutes(), wall_ms=1.0, metric_ids=named[:-1]
    )
    assert "final_answer_turns" not in without  # an experiment that does not name it never computes it
    assert values["state_completion"] == 0.5 and values["unique_candidates_exposed"] == 1
    assert values["next_tool_recall_at_5"] is None  # a condition that does not rank


def test_registering_one_id_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    scratch(monkeypatch, registry.METRICS)
    with pytest.raises(SchemaRouterError, match="registered twice"):
        metric("task_pass")(lambda view: 0)


class _NoRoutes:
    @property
    def by_route(self) -> dict[str, object]:
        return {}
