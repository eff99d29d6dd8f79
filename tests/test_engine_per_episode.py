"""What an episode may not do: build anything per catalog entry (lookups, renders, agent catalogs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from runtime.agents import registry
from runtime.agents.catalog_view import AgentCatalog
from runtime.agents.registry import make_agent
from runtime.catalog.model import Catalog, Endpoint
from runtime.engine import EngineResources, run_episode
from runtime.prompt import ToolSchemas
from schemarouter.application.episode import load_engine
from schemarouter.project import ProjectPaths

ROOT = ProjectPaths.at(Path(__file__).resolve().parents[1])
CONDITIONS = ("SR-5-STATIC", "SR-PROGRESSIVE-STATIC", "SR-5-STATE-AWARE", "FULL", "ORACLE")


@pytest.fixture(scope="module")
def reference() -> EngineResources:
    return load_engine(paths=ROOT, catalog_sizes=(100,))


@pytest.fixture(scope="module", params=["reference", "adversarial"])
def engine(request: pytest.FixtureRequest, reference: EngineResources) -> EngineResources:
    if request.param == "reference":
        return reference
    return EngineResources.load(
        catalogs_dir=ROOT.catalogs_dir, compiled=reference.compiled, catalog_sizes=(100,), agent=request.param
    )


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("per-catalog work inside an episode")


def test_episodes_build_nothing_per_catalog(engine: EngineResources, monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = [engine.tasks[k] for k in sorted(engine.tasks)][::20]
    # Warm up once (a first episode may render the schemas it shows), then forbid every per-catalog build.
    for condition in CONDITIONS:
        for task in tasks:
            run_episode(resources=engine, task=task, condition_id=condition, catalog_size=100)
    monkeypatch.setattr(AgentCatalog, "__post_init__", _refuse)
    monkeypatch.setattr(Catalog, "by_route", _refuse)
    monkeypatch.setattr(Catalog, "by_name", _refuse)
    monkeypatch.setattr(ToolSchemas, "__init__", _refuse)
    monkeypatch.setattr(Endpoint, "tool_schema", _refuse)
    for condition in CONDITIONS:
        for task in tasks:
            trace = run_episode(resources=engine, task=task, condition_id=condition, catalog_size=100)
            assert trace.turns


def _deterministic(value: Any) -> Any:
    """A trace without its wall-clock parts."""
    if isinstance(value, dict):
        return {k: _deterministic(v) for k, v in value.items() if k not in ("wall_latency_ms", "latency_us")}
    if isinstance(value, list):
        return [_deterministic(v) for v in value]
    return value


def test_agent_catalog_matches_a_plain_endpoint_tuple(engine: EngineResources) -> None:
    cat = engine.catalog(100)
    task = engine.tasks[sorted(engine.tasks)[0]]
    shared = make_agent(
        engine.agent, task=task, catalog=cat.agent_catalog, settings=engine.agent_spec.section(engine.agent)
    )
    plain = make_agent(
        engine.agent,
        task=task,
        catalog=cat.catalog.endpoints,
        settings=engine.agent_spec.section(engine.agent),
    )
    a = run_episode(resources=engine, task=task, condition_id="SR-5-STATIC", catalog_size=100, agent=shared)
    b = run_episode(resources=engine, task=task, condition_id="SR-5-STATIC", catalog_size=100, agent=plain)
    assert _deterministic(a.model_dump()) == _deterministic(b.model_dump())
    assert cat.agent_catalog.destructive == tuple(
        e for e in cat.catalog.endpoints if e.side_effect == "destructive"
    )
    assert dict(cat.agent_catalog.by_route) == cat.catalog.by_route()


def test_unknown_agent_is_an_error(engine: EngineResources) -> None:
    with pytest.raises(Exception, match="unknown agent"):
        registry.make_agent("nope", task=engine.tasks[sorted(engine.tasks)[0]], catalog=(), settings=None)
