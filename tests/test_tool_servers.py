"""Native tool calling through servers that parse tool calls (llama.cpp ``--jinja``, vLLM's ``hermes`` and
``llama3_json`` parsers), and the answer action named in the prompt (agent.yaml ``answer_action``).

A scripted loopback server plays a competent model that answers **only with an action the prompt
names**: each turn it takes the reference agent's decision for that task and turn (from a reference run
of the same scope), and answers it in the response shape of one server (``tests/fixtures/tool_servers/``,
recorded formats derived from those projects' documentation) if the prompt names that action: native
mode, a tool in ``tools``; constrained decoding, the action in the system message. It finishes ORACLE
episodes in both modes once ``answer_action: named``; under the frozen prompts (``unnamed``),
constrained decoding never names final_answer, so that model cannot finish.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from llm_loopback import Loopback, loopback
from run_support import copy_project
from typer.testing import CliRunner

from compiler.successor import ANSWER_ACTION_SCHEMA
from runtime.run.store import EpisodeStore
from runtime.surface import load_surface
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # two frozen copies and a dozen short runs

FIXTURES = Path(__file__).parent / "fixtures" / "tool_servers"
FORMATS = ("llamacpp_jinja", "vllm_hermes", "vllm_llama3_json")
TASKS = "S1-en-01,S2-en-01,S3-en-01,S4-en-01,S5-en-01"
SCOPE = ("--conditions", "ORACLE", "--catalogs", "100", "--tasks", TASKS, "--no-plots")


def _project(root: Path, named: bool) -> ProjectPaths:
    from compiler import freeze_project

    paths = copy_project(root)
    if named:
        agent = paths.spec_dir / "agent.yaml"
        agent.write_text(agent.read_text() + "answer_action: named\n")
        schema_file = paths.schema_dir / "agent.schema.json"
        schema = json.loads(schema_file.read_text())
        schema["properties"]["answer_action"] = ANSWER_ACTION_SCHEMA
        schema_file.write_text(json.dumps(schema, indent=2) + "\n")
    freeze_project(paths, reason="tool-server tests")
    return paths


def sr(paths: ProjectPaths, *args: str) -> str:
    result = CliRunner().invoke(app, ["--project-dir", str(paths.root), *args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def traces(run_dir: Path) -> list[dict[str, Any]]:
    with EpisodeStore(run_dir, readonly=True) as store:
        return [json.loads(store.read_trace(k) or "{}") for k in sorted(store.committed_keys())]


@pytest.fixture(scope="module")
def named(tmp_path_factory: pytest.TempPathFactory) -> ProjectPaths:
    return _project(tmp_path_factory.mktemp("named"), named=True)


@pytest.fixture(scope="module")
def plans(named: ProjectPaths, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    """The reference agent's decisions per turn, by the task's query: what a competent model would do."""
    run_dir = tmp_path_factory.mktemp("reference") / "run"
    sr(named, "run", *SCOPE, "--run-dir", str(run_dir))
    queries = {t.task_id: t.visible().query for t in load_surface(named.catalogs_dir)}
    out = {queries[t["task_id"]]: [turn["decision"] for turn in t["turns"]] for t in traces(run_dir)}
    assert all(t["passed"] for t in traces(run_dir))
    return out


class ScriptedModel:
    """Answers each request with the plan's decision for its turn, in one server's response shape, when
    the prompt names that action; otherwise with text that names none."""

    def __init__(self, plans: dict[str, list[dict[str, Any]]], server_format: str) -> None:
        self.plans = plans
        self.format = json.loads((FIXTURES / f"{server_format}.json").read_text())
        self.ids = itertools.count(1)
        self.unnamed: list[str] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        turn = sum(1 for m in messages if m["role"] == "assistant")
        plan = self.plans[messages[1]["content"]]
        decision = plan[min(turn, len(plan) - 1)]  # past the plan: it still wants to answer
        name = decision["tool_name"] if decision["kind"] == "tool_call" else "final_answer"
        arguments = decision.get("arguments") or decision.get("answer") or {}
        constrained = "response_format" in request
        if constrained:
            named = f'"name":"{name}"' in messages[0]["content"]  # the tools block of the system message
        else:
            named = name in {t["function"]["name"] for t in request.get("tools") or ()}
        if not named:
            self.unnamed.append(name)
            return self._render("text", CONTENT="I cannot tell which action ends this.")
        if constrained:
            return self._render("text", CONTENT=json.dumps({"action": name, "arguments": arguments}))
        separators = tuple(self.format["arguments_separators"])
        text = json.dumps(arguments, ensure_ascii=False, separators=separators)  # type: ignore[arg-type]
        return self._render("tool_call", NAME=name, ARGUMENTS=text)

    def _render(self, kind: str, **fields: str) -> dict[str, Any]:
        fields["ID"] = f"{next(self.ids):032x}"

        def fill(value: Any) -> Any:
            if isinstance(value, dict):
                return {k: fill(v) for k, v in value.items()}
            if isinstance(value, list):
                return [fill(v) for v in value]
            if isinstance(value, str):
                for key, text in fields.items():
                    value = value.replace("{" + key + "}", text)
            return value

        filled = fill(self.format[kind])
        assert isinstance(filled, dict)
        return filled


def model_run(paths: ProjectPaths, model: ScriptedModel, run_dir: Path, mode: str) -> list[dict[str, Any]]:
    with loopback(Loopback(answer=model)) as server:
        sr(paths, "run", *SCOPE, "--agent", "openai", "--base-url", server.base_url, "--model", "m", mode,
           "--no-cache", "--run-dir", str(run_dir))  # fmt: skip
    return traces(run_dir)


@pytest.mark.parametrize("server_format", FORMATS)
def test_native_tool_calls_through_each_server_finish_oracle_episodes(
    named: ProjectPaths, plans: dict[str, list[dict[str, Any]]], tmp_path: Path, server_format: str
) -> None:
    model = ScriptedModel(plans, server_format)
    done = model_run(named, model, tmp_path / "run", "--native-tools")
    assert model.unnamed == []
    assert [t["ended_by"] for t in done] == ["final_answer"] * 5 and all(t["passed"] for t in done)
    assert all(t["turns"][-1]["model_call"]["tool_calls"] == 1 for t in done)  # final_answer, as a call


def test_constrained_decoding_finishes_oracle_episodes_once_the_prompt_names_the_answer(
    named: ProjectPaths, plans: dict[str, list[dict[str, Any]]], tmp_path: Path
) -> None:
    model = ScriptedModel(plans, "llamacpp_jinja")
    done = model_run(named, model, tmp_path / "run", "--constrained-decoding")
    assert model.unnamed == [] and all(t["passed"] for t in done) and len(done) == 5


def test_under_the_frozen_prompts_constrained_decoding_never_names_the_answer(
    plans: dict[str, list[dict[str, Any]]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    unnamed = _project(tmp_path_factory.mktemp("unnamed"), named=False)
    model = ScriptedModel(plans, "llamacpp_jinja")
    done = model_run(unnamed, model, tmp_path_factory.mktemp("u") / "run", "--constrained-decoding")
    assert set(model.unnamed) == {"final_answer"}
    assert not any(t["passed"] for t in done)


def test_the_named_answer_is_counted_in_the_prompt_tokens(
    named: ProjectPaths, plans: dict[str, list[dict[str, Any]]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The same reference episodes cost more input and schema tokens with the answer action named."""
    unnamed = _project(tmp_path_factory.mktemp("unnamed-tokens"), named=False)
    counts = []
    for paths in (unnamed, named):
        run_dir = tmp_path_factory.mktemp("tokens") / "run"
        sr(paths, "run", *SCOPE, "--run-dir", str(run_dir))
        counts.append(
            [(t["turns"][0]["input_tokens"], t["turns"][0]["schema_tokens"]) for t in traces(run_dir)]
        )
    for (input_before, schema_before), (input_after, schema_after) in zip(*counts, strict=True):
        assert schema_after > schema_before and input_after - input_before > schema_after - schema_before


def test_a_successor_schema_admits_answer_action_and_refuses_other_values(tmp_path: Path) -> None:
    from compiler.successor import admit_answer_action
    from compiler.validate import collect_issues

    paths = copy_project(tmp_path)
    assert admit_answer_action(paths) and not admit_answer_action(paths)  # added once
    agent = paths.spec_dir / "agent.yaml"
    original = agent.read_text()
    agent.write_text(original + "answer_action: named\n")
    assert [i for i in collect_issues(paths)[1] if i.file.endswith("agent.yaml")] == []
    agent.write_text(original + "answer_action: sometimes\n")
    issues = [i for i in collect_issues(paths)[1] if i.file.endswith("agent.yaml")]
    assert len(issues) == 1 and issues[0].path == ("answer_action",)
    assert issues[0].position.line == original.count("\n") + 1 and "sometimes" in issues[0].message
