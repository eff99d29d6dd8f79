"""The trace format: exposure by reference (version 2), and version-1 traces still read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from runtime.catalog.io import load_catalog_with_digest
from runtime.core.errors import SchemaRouterError
from runtime.engine import TRACE_VERSION, EngineResources, read_trace, run_episode
from runtime.engine.metrics_audit import MetricsAudit
from runtime.engine.trace import EpisodeTrace
from runtime.run.scope import EpisodeKey
from runtime.run.store import EpisodeOutcome
from schemarouter.application.episode import load_engine
from schemarouter.project import ProjectPaths

ROOT = ProjectPaths.at(Path(__file__).resolve().parents[1])


@pytest.fixture(scope="module")
def engine() -> EngineResources:
    return load_engine(paths=ROOT, catalog_sizes=(100,))


def _trace(engine: EngineResources, condition: str, index: int = 0) -> EpisodeTrace:
    task = engine.tasks[sorted(engine.tasks)[index]]
    return run_episode(resources=engine, task=task, condition_id=condition, catalog_size=100)


def _as_v1(trace: EpisodeTrace) -> dict[str, Any]:
    """The same episode written in the version-1 shape: route IDs repeated in every turn."""
    data = json.loads(trace.model_dump_json())
    for turn in data["turns"]:
        turn["exposed_route_ids"] = data["exposures"][turn.pop("exposure")]
    data["initial_exposure"] = data["exposures"][data["initial_exposure"]]
    for key in ("exposures", "catalog_digest"):
        del data[key]
    data["trace_version"] = 1
    return data


def test_full_catalog_is_stored_once_per_episode_and_names_the_catalog(engine: EngineResources) -> None:
    trace = _trace(engine, "FULL")
    assert trace.trace_version == TRACE_VERSION == 2
    assert trace.catalog_digest == load_catalog_with_digest(ROOT.catalogs_dir, 100)[1]
    assert trace.exposures == [sorted(engine.catalog(100).route_ids)]
    assert len(trace.turns) > 1 and {t.exposure for t in trace.turns} == {0} and trace.initial_exposure == 0
    text = trace.model_dump_json()
    assert text.count(engine.catalog(100).route_ids[-1]) == 1


def test_changing_exposures_each_get_one_entry(engine: EngineResources) -> None:
    widened = 0
    for index in range(0, 180, 9):
        trace = _trace(engine, "SR-PROGRESSIVE-STATIC", index)
        shown = [trace.exposed_route_ids(t) for t in trace.turns]
        distinct = list(dict.fromkeys(tuple(s) for s in [trace.initial_route_ids(), *shown]))
        assert [tuple(e) for e in trace.exposures] == distinct
        assert trace.initial_route_ids() == shown[0]
        widened += len(distinct) > 1
    assert widened  # some episode widened, so the table held more than one list


@pytest.mark.parametrize("condition", ["SR-5-STATE-AWARE", "FULL", "ORACLE"])
def test_version_1_reads_back_with_the_same_information(engine: EngineResources, condition: str) -> None:
    trace = _trace(engine, condition, 4)
    old = _as_v1(trace)
    got = read_trace(json.dumps(old))
    assert got.trace_version == TRACE_VERSION and got.catalog_digest is None
    assert got.model_dump(exclude={"catalog_digest"}) == trace.model_dump(exclude={"catalog_digest"})
    assert [got.exposed_route_ids(t) for t in got.turns] == [t["exposed_route_ids"] for t in old["turns"]]


def test_version_2_round_trips(engine: EngineResources) -> None:
    trace = _trace(engine, "SR-5-STATE-AWARE", 7)
    assert read_trace(trace.model_dump_json()) == trace
    assert read_trace(json.loads(trace.model_dump_json())) == trace


def test_metrics_recomputed_from_a_version_1_trace_are_the_same(engine: EngineResources) -> None:
    from runtime.engine.metrics import episode_metrics

    trace = _trace(engine, "SR-PROGRESSIVE-STATIC", 11)
    old = _as_v1(trace)
    task = engine.tasks[trace.task_id]
    again = episode_metrics(
        task=task,
        trace=read_trace(old),
        ranks=True,
        catalog=engine.catalog(100),
        wall_ms=0.0,
        metric_ids=engine.metric_ids,
    )
    assert {k: v for k, v in again.items() if k != "wall_latency_ms"} == {
        k: v for k, v in trace.metrics.items() if k != "wall_latency_ms"
    }


@pytest.mark.parametrize("bad", [{"trace_version": 3}, {"no": "version"}, [1, 2]])
def test_unreadable_traces_are_clean_errors(bad: Any) -> None:
    with pytest.raises(SchemaRouterError, match="trace:"):
        read_trace(json.dumps(bad))


@pytest.mark.parametrize("change", ["version 3", "no version"])
def test_a_complete_trace_of_another_or_no_version_is_refused_from_text(
    engine: EngineResources, change: str
) -> None:
    """The text path validates the current version straight from JSON; a record that would validate
    but says another version, or none (the model's default is not a statement), is still refused."""
    data = json.loads(_trace(engine, "SR-5-STATIC").model_dump_json())
    if change == "version 3":
        data["trace_version"] = 3
    else:
        del data["trace_version"]
    with pytest.raises(SchemaRouterError, match="is not readable"):
        read_trace(json.dumps(data))


def test_text_and_parsed_object_read_the_same(engine: EngineResources) -> None:
    for condition in ("SR-5-STATE-AWARE", "FULL"):
        text = _trace(engine, condition, 3).model_dump_json()
        assert read_trace(text) == read_trace(json.loads(text)) == read_trace(text.encode())
        assert read_trace(text).model_dump_json() == text


def test_an_index_outside_the_table_is_refused(engine: EngineResources) -> None:
    data = json.loads(_trace(engine, "SR-5-STATIC").model_dump_json())
    data["turns"][0]["exposure"] = len(data["exposures"])
    with pytest.raises(ValueError, match="outside"):
        read_trace(data)


@pytest.mark.parametrize("condition", ["SR-5-STATIC", "SR-PROGRESSIVE-STATIC", "SR-5-STATE-AWARE", "FULL"])
def test_rescoring_a_stored_trace_gives_the_engines_metrics(engine: EngineResources, condition: str) -> None:
    from runtime.engine.metrics import episode_metrics

    ranks = engine.condition(condition).retrieval_query != "none"
    for index in range(0, 180, 12):
        trace = _trace(engine, condition, index)
        stored = read_trace(trace.model_dump_json())  # rebuilt from the record, not the engine's objects
        again = episode_metrics(
            task=engine.tasks[trace.task_id],
            trace=stored,
            ranks=ranks,
            catalog=engine.catalog(100),
            wall_ms=0.0,
            metric_ids=engine.metric_ids,
        )
        assert {k: v for k, v in again.items() if k != "wall_latency_ms"} == {
            k: v for k, v in trace.metrics.items() if k != "wall_latency_ms"
        }


def _audit_of(engine: EngineResources, trace: EpisodeTrace) -> tuple[MetricsAudit, EpisodeKey]:
    audit = MetricsAudit(
        tasks=engine.tasks,
        routes={100: engine.catalog(100)},
        ranks={trace.condition: True},
        metric_ids=engine.metric_ids,
    )
    return audit, EpisodeKey(trace.task_id, trace.condition, trace.catalog)


def test_the_audit_reads_the_stored_trace_typed_and_accepts_its_own_metrics(engine: EngineResources) -> None:
    trace = _trace(engine, "SR-5-STATE-AWARE", 2)
    audit, key = _audit_of(engine, trace)
    stored = {k: v for k, v in trace.metrics.items() if k != "wall_latency_ms"}
    audit(EpisodeOutcome(key, stored, trace.wall_latency_ms, trace.model_dump_json()))  # no error
    with pytest.raises(SchemaRouterError, match="stored metrics differ"):
        flipped = {**stored, "task_pass": 1 - int(trace.passed)}
        audit(EpisodeOutcome(key, flipped, 0.0, trace.model_dump_json()))


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda d: d.pop("passed"), r"\(passed: Field required\)"),
        (lambda d: d["turns"][0].update(turn="one"), r"\(turns\.0\.turn: Input should be a valid integer"),
        (lambda d: d.update(trace_version=7), r"\(trace: version 7 is not readable; readable: 1, 2\)"),
    ],
    ids=["missing field", "wrong type", "unknown version"],
)
def test_a_broken_stored_trace_is_one_line_naming_its_first_problem(
    engine: EngineResources, damage: Any, reason: str
) -> None:
    trace = _trace(engine, "SR-5-STATE-AWARE", 2)
    audit, key = _audit_of(engine, trace)
    data = json.loads(trace.model_dump_json())
    damage(data)
    with pytest.raises(SchemaRouterError, match=r"the stored trace cannot be read " + reason) as caught:
        audit(EpisodeOutcome(key, dict(trace.metrics), 0.0, json.dumps(data)))
    assert "\n" not in str(caught.value)
