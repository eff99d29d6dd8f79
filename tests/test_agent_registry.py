"""The agent registry: agents register where they are defined and are discovered; a new agent that the
frozen agent.yaml does not name runs on the frozen experiment with the defaults it declares, recorded
in the run manifest."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from registry_support import scratch
from rich.console import Console
from run_support import frozen_project

from runtime.agents import registry
from runtime.agents.protocol import AgentView, Decision, FinalAnswer
from runtime.agents.registry import agent_names, make_agent, register_agent
from runtime.core.errors import SchemaRouterError
from runtime.run import read_manifest
from schemarouter.application.run import RunDeps, RunRequest, run_experiment


class GiveUpAgent:
    """Answers at once with a fixed text: the smallest agent there is."""

    name = "give-up"

    def __init__(self, text: str) -> None:
        self.text = text

    def decide(self, view: AgentView) -> Decision:
        return FinalAnswer(text=self.text)


def test_the_built_in_agents_are_discovered_from_their_own_modules() -> None:
    assert {"reference", "adversarial", "openai"} <= set(agent_names())
    assert registry.registered_agent("reference").factory.__module__.endswith("agents.reference")
    assert registry.registered_agent("openai").factory.__module__.endswith("agents.openai_agent")


def test_an_unknown_agent_or_one_without_settings_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SchemaRouterError, match="unknown agent 'nope'; known: "):
        make_agent("nope", task=None, catalog=(), settings=None)  # type: ignore[arg-type]
    scratch(monkeypatch, registry.AGENTS)
    register_agent("bare")(lambda **kwargs: GiveUpAgent("x"))
    with pytest.raises(SchemaRouterError, match=r"no section in agent\.yaml and declares no defaults"):
        make_agent("bare", task=None, catalog=(), settings=None)  # type: ignore[arg-type]


def test_a_new_agent_runs_on_the_frozen_experiment_with_its_declared_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch(monkeypatch, registry.AGENTS)

    @register_agent("give-up", defaults={"text": "I cannot help with that."})
    def _give_up(
        *, task: Any, catalog: Any, settings: Mapping[str, Any], options: dict[str, Any]
    ) -> GiveUpAgent:
        return GiveUpAgent(settings["text"])

    paths = frozen_project(tmp_path)
    request = RunRequest(
        agent="give-up", conditions="SR-5-STATIC", catalogs="100", tasks="S1,en", workers=1, plots=False
    )
    outcome = run_experiment(paths, request, RunDeps(console=Console(file=open(tmp_path / "out", "w"))))  # noqa: SIM115
    assert outcome.exit_code == 0
    manifest = read_manifest(outcome.run_dir)
    assert manifest.agent.name == "give-up" and manifest.agent.config == {"text": "I cannot help with that."}
    report = outcome.report or {}
    assert report["metrics"]["SR-5-STATIC"]["100"]["task_pass"]["point"] == 0.0  # it never calls a tool
