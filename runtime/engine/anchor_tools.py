"""The fair anchor: our episodes replayed through inspect_ai's own tool-calling loop, timed in-process.

One inspect_ai sample per episode, one model turn per recorded turn. At each turn the solver sets the
sample's tools to that turn's exposed schemas as ``ToolDef``s (the same OpenAI function shapes our
prompt shows: name, description, JSON-schema parameters), calls ``generate(state, tool_calls="single")``
against ``mockllm/model``, whose ``custom_outputs`` returns the reference agent's recorded decision
for that turn (a tool call with its arguments, or the text of an answer / refusal), and inspect
executes the call: it looks the tool up, validates the arguments against the parameters' JSON schema
and runs the tool function, which returns the simulator's recorded result as JSON text. A scorer
checks the executed tool calls against the recorded ones and scores the episode's recorded outcome.

What inspect_ai does that we do not, and the reverse (``runtime/engine/README.md`` has the table): it
keeps every message in the sample's state and, with sample logs on, writes them to its log; it runs an
asyncio task per sample. It does no retrieval, no gate, no simulation and no token counting (mockllm's
usage is set, so nothing is counted or downloaded); we do all four, and serialise the trace. The eval's
log goes to a temporary directory that is deleted afterwards. inspect_ai is the ``bench`` extra.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from runtime.core.json_value import JSONObject
from runtime.engine.anchor import AnchorCost
from runtime.engine.trace import EpisodeTrace


@dataclass(frozen=True)
class ReplayTurn:
    """One recorded model turn: what was exposed, what the agent answered, what the tool returned."""

    tools: tuple[dict[str, Any], ...]  # the exposed tool schemas, in exposure order
    tool_name: str | None  # the call the agent made (None: an answer, a refusal or bad output)
    arguments: Mapping[str, Any]
    text: str  # the agent's text when it made no call; the recorded result's JSON when it did


@dataclass(frozen=True)
class ReplayEpisode:
    key: str
    query: str
    passed: bool
    turns: tuple[ReplayTurn, ...]


def replay_episode(trace: EpisodeTrace, query: str, schemas: Mapping[str, JSONObject]) -> ReplayEpisode:
    """An episode's trace as the turns inspect_ai replays; ``schemas``: every route's tool schema in the
    episode's catalog."""
    turns = []
    for t in trace.turns:
        tools = tuple(schemas[r] for r in trace.exposed_route_ids(t))
        decision = t.decision
        if decision.kind == "tool_call" and decision.tool_name:
            recorded = t.result.model_dump(mode="json") if t.result is not None else {}
            result = json.dumps(recorded, sort_keys=True)
            arguments = decision.arguments if isinstance(decision.arguments, dict) else {}
            turns.append(ReplayTurn(tools, decision.tool_name, arguments, result))
        else:
            text = decision.answer or decision.detail or decision.kind
            turns.append(ReplayTurn(tools, None, {}, json.dumps(text)))
    key = f"{trace.task_id}|{trace.condition}|{trace.catalog}"
    return ReplayEpisode(key=key, query=query, passed=trace.passed, turns=tuple(turns))


def inspect_tool_loop_cost(episodes: Sequence[ReplayEpisode], *, log_samples: bool) -> AnchorCost:
    """One eval of one sample per episode through inspect_ai's tool loop (see the module doc)."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model

    by_id = {i: e for i, e in enumerate(episodes, start=1)}
    samples = [
        Sample(input=f"[{i}] {e.query}", target="C" if e.passed else "I", id=i) for i, e in by_id.items()
    ]
    task = Task(dataset=samples, solver=_replay_solver(by_id), scorer=_replayed_calls_scorer(by_id))
    with tempfile.TemporaryDirectory(prefix="sr-anchor-tools-") as log_dir:
        started = time.process_time()
        logs = inspect_eval(
            task,
            model=get_model("mockllm/model", custom_outputs=_recorded_output(by_id), memoize=False),
            log_dir=log_dir,
            log_samples=log_samples,
            display="none",
        )
        cpu = time.process_time() - started
    status = {str(getattr(log, "status", "")) for log in logs}
    if status != {"success"}:
        raise RuntimeError(f"inspect_ai eval did not succeed: {sorted(status)}")
    scores = [s for log in logs for s in ((log.results.scores if log.results else None) or ())]
    accuracy = next((m.value for s in scores for name, m in s.metrics.items() if name == "accuracy"), None)
    expected = sum(e.passed for e in episodes) / len(episodes) if episodes else 0.0
    if accuracy is None or abs(float(accuracy) - expected) > 1e-9:
        raise RuntimeError(
            f"the replay's scorer disagrees with the recorded outcomes ({accuracy} vs {expected})"
        )
    turns = sum(len(e.turns) for e in episodes)
    return AnchorCost(samples=len(episodes), turns=turns, cpu_s=cpu)


def _sample_of(messages: Sequence[Any]) -> int:
    first = next(m for m in messages if getattr(m, "role", None) == "user")
    return int(first.text.split("]", 1)[0].lstrip("["))


def _recorded_output(by_id: Mapping[int, ReplayEpisode]) -> Any:
    """mockllm's ``custom_outputs``: the recorded decision of the sample's next turn, usage set (so
    mockllm counts no tokens: counting would download o200k_base, and nothing may be downloaded)."""
    from inspect_ai.model import ModelOutput, ModelUsage

    def output(messages: Any, tools: Any, tool_choice: Any, config: Any) -> Any:
        episode = by_id[_sample_of(messages)]
        turn = episode.turns[sum(1 for m in messages if getattr(m, "role", None) == "assistant")]
        if turn.tool_name is None:
            out = ModelOutput.from_content(model="mockllm", content=turn.text)
        else:
            out = ModelOutput.for_tool_call(
                model="mockllm", tool_name=turn.tool_name, tool_arguments=dict(turn.arguments)
            )
        out.usage = ModelUsage(input_tokens=len(messages), output_tokens=8, total_tokens=len(messages) + 8)
        return out

    return output


def _tool_defs(turn: ReplayTurn) -> list[Any]:
    from inspect_ai.tool import ToolDef, ToolParams

    defs = []
    for schema in turn.tools:
        function = schema["function"]

        async def run(_result: str = turn.text, **_arguments: Any) -> str:
            return _result

        defs.append(
            ToolDef(
                run,
                name=function["name"],
                description=function["description"],
                parameters=ToolParams.model_validate(function["parameters"]),
            )
        )
    return defs


def _replay_solver(by_id: Mapping[int, ReplayEpisode]) -> Any:
    from inspect_ai.solver import Generate, TaskState, solver

    @solver  # type: ignore[untyped-decorator, unused-ignore]  # typed when the bench extra is installed
    def replay() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            for turn in by_id[int(state.sample_id)].turns:
                state.tools = _tool_defs(turn)
                state = await generate(state, tool_calls="single")
            return state

        return solve

    return replay()


def _replayed_calls_scorer(by_id: Mapping[int, ReplayEpisode]) -> Any:
    from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
    from inspect_ai.solver import TaskState

    @scorer(metrics=[accuracy()])  # type: ignore[untyped-decorator, unused-ignore]
    def replayed_calls() -> Any:
        async def score(state: TaskState, target: Target) -> Score:
            episode = by_id[int(state.sample_id)]
            made = [c.function for m in state.messages if m.role == "assistant" for c in (m.tool_calls or ())]
            recorded = [t.tool_name for t in episode.turns if t.tool_name is not None]
            if made != recorded:
                return Score(value=INCORRECT, explanation=f"calls {made} differ from the recorded {recorded}")
            return Score(value=CORRECT if target.text == "C" else INCORRECT)

        return score

    return replayed_calls()
