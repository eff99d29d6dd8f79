"""One episode: one task, under one condition, on one catalog size, with one agent.

The loop, per model turn:
1. build the prompt from the exposed schemas and the history, and count its tokens;
2. the agent decides: a tool call, a final answer, or that it cannot proceed;
3. the policy gate decides on a call and writes its audit record before anything executes;
4. an allowed call executes in the simulator (only an Allow can reach it);
5. ObservableState is updated from the typed result only, with the deterministic task-incomplete flag;
6. the exposure policy may refresh or widen, within its limits.
It stops on a final answer or cannot-proceed, at the maximum number of model turns, or after the
configured number of consecutive tool turns without progress.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal

from runtime.agents.protocol import Agent, AgentView, BadOutput, CannotProceed, FinalAnswer
from runtime.authorization import Allow, PolicyGate, execute_allowed
from runtime.core.json_value import JSONValue
from runtime.engine.metrics import EpisodeView, metric_values
from runtime.engine.resources import CatalogResources, EngineResources
from runtime.engine.trace import (
    EndedBy,
    EpisodeTrace,
    ExposureTable,
    TraceDecision,
    TraceResult,
    TurnRecord,
)
from runtime.exposure import ExposurePolicy, PolicyInputs, build_policy
from runtime.prompt import ANSWER_ACTION, HistoryEntry, build_prompt
from runtime.simulator.calls import ExecutedCall
from runtime.simulator.result import ToolResult
from runtime.state import ObservableState
from runtime.state.guard import active_guard
from runtime.surface.check import check_task, milestones_reached
from runtime.surface.model import Task
from runtime.surface.plan import required_routes


def run_episode(
    *,
    resources: EngineResources,
    task: Task,
    condition_id: str,
    catalog_size: int,
    agent: Agent | None = None,
    epoch: int = 1,
) -> EpisodeTrace:
    """``epoch``: the trial's number (1-based) when a run repeats each episode; the agent samples with
    that epoch's seed, and the trace records it when it is not 1."""
    started = time.perf_counter()
    cat = resources.catalog(catalog_size)
    condition = resources.condition(condition_id)
    agent = agent or resources.make_agent(task=task, catalog=cat, epoch=epoch)
    visible = task.visible()
    static, research = cat.retrievers_for(condition.retriever)
    policy = build_policy(
        condition,
        PolicyInputs(
            static=static,
            research=research,
            catalog_route_ids=cat.route_ids,
            required_route_ids=required_routes(task),
        ),
    )
    gate = PolicyGate(cat.by_name, visible.grants)
    episode = _Episode(resources, cat, task, policy, gate, agent)
    episode.pending_retrievals = policy.start(visible.query)
    initial_exposure = episode.exposures.ref(policy.exposed)
    ended_by = episode.loop()
    check = check_task(task, episode.executed, episode.world, gave_final_answer=ended_by == "final_answer")
    wall_ms = (time.perf_counter() - started) * 1000.0
    trace = EpisodeTrace(
        task_id=visible.task_id,
        stratum=visible.stratum,
        language=visible.language,
        condition=condition_id,
        catalog=catalog_size,
        agent=agent.name,
        tokenizer=resources.tokenizer_name,
        catalog_digest=cat.digest,
        exposures=episode.exposures.lists,
        initial_exposure=initial_exposure,
        turns=episode.turns,
        ended_by=ended_by,
        passed=check.passed,
        milestones_reached=check.milestones_reached,
        milestones_total=check.milestones_total,
        check_reasons=list(check.reasons),
        epoch=None if epoch == 1 else epoch,
        metrics={},  # computed from this very trace, below
        model_calls=summarize_model_calls(episode.turns),
        wall_latency_ms=round(wall_ms, 3),
    )
    ranks = condition.retrieval_query != "none"
    view = EpisodeView(task, trace, ranks, cat, wall_ms, episode.executed_turns)
    metrics = metric_values(resources.metrics(), view)
    return trace.model_copy(update={"metrics": metrics})


def summarize_model_calls(turns: Sequence[TurnRecord]) -> dict[str, int] | None:
    """Per-episode totals of a model agent's calls; None for agents that make none."""
    calls = [t.model_call for t in turns if t.model_call is not None]
    if not calls:
        return None
    usage = [u if isinstance(u := c.get("usage"), dict) else {} for c in calls]
    return {
        "calls": len(calls),
        "cache_hits": sum(1 for c in calls if c["cached"]),
        "server_calls": sum(_count(c["server_calls"]) for c in calls),
        "reported_prompt_tokens": sum(_count(u.get("prompt_tokens")) for u in usage),
        "reported_completion_tokens": sum(_count(u.get("completion_tokens")) for u in usage),
    }


def _count(value: JSONValue) -> int:
    """A recorded count as an int (absent or null: 0)."""
    if isinstance(value, list | dict):
        raise TypeError(f"a model call's count is not a number: {value!r}")
    return int(value or 0)


_INITIAL_STATES: dict[int, ObservableState] = {}


def _initial_state() -> ObservableState:
    """The initial state, built once per installed contract (states are immutable)."""
    key = id(active_guard())
    state = _INITIAL_STATES.get(key)
    if state is None:
        state = _INITIAL_STATES[key] = ObservableState.initial()
    return state


class _Episode:
    def __init__(
        self,
        resources: EngineResources,
        cat: CatalogResources,
        task: Task,
        policy: ExposurePolicy,
        gate: PolicyGate,
        agent: Agent,
    ):
        self.resources = resources
        self.cat = cat
        self.task = task
        self.policy = policy
        self.gate = gate
        self.agent = agent
        self.world = task.hidden.world
        self.query = task.visible().query
        self.state = _initial_state()  # immutable
        # The engine's deterministic flag; the state carries it where its contract declares a field
        # derived from engine.task_incomplete (0.14's task_incomplete).
        self.task_incomplete = True
        self.milestones = 0  # milestones reached by the executed calls so far
        self.executed: list[ExecutedCall] = []
        self.executed_turns: list[tuple[int, ExecutedCall]] = []  # (turn, call), for the metrics
        self.history: list[HistoryEntry] = []
        self.turns: list[TurnRecord] = []
        self.exposures = ExposureTable()
        self.pending_retrievals: list[Any] = []
        self.after_tool_turn = False

    def loop(self) -> EndedBy:
        engine = self.resources.engine_spec
        answer = self.resources.agent_spec.answer_action == "named"
        no_progress = 0
        for turn in range(1, engine.max_model_turns + 1):
            tools = self.cat.exposed(self.policy.exposed)
            history = tuple(self.history)
            prompt = build_prompt(
                system_prompt=engine.system_prompt,
                query=self.query,
                history=history,
                exposed=tools,
                answer_action=answer,
            )
            key: Any = (tools, ANSWER_ACTION) if answer else tools
            tokens = self.resources.counter.prompt(prompt.token_parts(), prompt.tool_texts, tools_key=key)
            records_before = len(getattr(self.agent, "records", ()))
            decision = self.agent.decide(AgentView(turn, prompt, tools.endpoints, history, tools))
            model_call = self._model_call(records_before)
            base: dict[str, Any] = {
                "turn": turn,
                "exposure": self.exposures.ref(tools.route_ids),
                "ranking_top5": None if self.policy.ranking_top5 is None else list(self.policy.ranking_top5),
                "retrieval_calls": [c.audit_dict() for c in self.pending_retrievals],
                "schema_tokens": tokens.schema_tokens,
                "input_tokens": tokens.input_tokens,
                "after_tool_turn_recall": self.after_tool_turn and self.task_incomplete,
                "model_call": model_call,
            }
            self.pending_retrievals = []
            if isinstance(decision, FinalAnswer | CannotProceed):
                kind: Literal["final_answer", "cannot_proceed"] = (
                    "final_answer" if isinstance(decision, FinalAnswer) else "cannot_proceed"
                )
                self.turns.append(
                    TurnRecord(
                        **base,
                        decision=TraceDecision(
                            kind=kind,
                            answer=decision.values if isinstance(decision, FinalAnswer) else None,
                            detail=decision.reason if isinstance(decision, CannotProceed) else None,
                        ),
                        audit=None,
                        result=None,
                        state_after=None,
                    )
                )
                return kind
            progressed = self._tool_turn(turn, decision, base, tools.names)
            no_progress = 0 if progressed else no_progress + 1
            if no_progress >= engine.max_consecutive_no_progress_turns:
                return "no_progress"
            if turn < engine.max_model_turns and self.task_incomplete:
                # Refresh or widen only when another decision point follows.
                self.pending_retrievals = self.policy.after_tool_turn(True, self.state)
        return "max_turns"

    def _model_call(self, records_before: int) -> dict[str, Any] | None:
        """The record a model agent kept of the call behind this turn's decision, if any."""
        records = getattr(self.agent, "records", None)
        if not records or len(records) <= records_before:
            return None
        r = records[-1]
        return {
            "cached": r.cached,
            "server_calls": r.server_calls,
            "usage": r.usage,
            "model": r.model,
            "system_fingerprint": r.system_fingerprint,
            "finish_reason": getattr(r, "finish_reason", None),
            "tool_calls": getattr(r, "tool_calls", None),
        }

    def _tool_turn(
        self, turn: int, decision: Any, base: dict[str, Any], exposed_names: frozenset[str]
    ) -> bool:
        if isinstance(decision, BadOutput):
            tool_name, arguments = decision.tool_name or "", decision.raw
            trace_decision = TraceDecision(
                kind="bad_output", tool_name=decision.tool_name, arguments=decision.raw, detail=decision.error
            )
        else:
            tool_name, arguments = decision.tool_name, decision.arguments
            trace_decision = TraceDecision(kind="tool_call", tool_name=tool_name, arguments=arguments)
        verdict = self.gate.decide(
            turn=turn,
            tool_name=tool_name,
            arguments=arguments,
            exposed_names=exposed_names,
        )
        before = self.milestones  # what self.executed reached before this turn
        new_route = False
        result: ToolResult | None = None
        if isinstance(verdict, Allow):
            result, self.world = execute_allowed(verdict, self.world)
            new_route = result.status == "ok" and all(c.route_id != result.route_id for c in self.executed)
            call = ExecutedCall(route_id=result.route_id, arguments=verdict.arguments, result=result)
            self.executed.append(call)
            self.executed_turns.append((turn, call))
            self.state = self.state.after_result(result)
            trace_result = TraceResult(
                status=result.status,
                route_id=result.route_id,
                error_class=result.error_class,
                fields=[f.model_dump(mode="json") for f in result.fields],
                message=result.message,
            )
            model_view = result.model_view()
        else:
            error_class = verdict.audit.error_class or "UNEXPOSED"
            route_id = verdict.audit.route_id
            # Only a registered route ID is passed: a made-up tool name is model output. The missing
            # inputs are named by the catalog's semantic IDs of the route's required inputs that the
            # call left out (the arguments' keys are only tested against them, never copied).
            missing = self._missing_inputs(route_id, arguments) if error_class == "MISSING_INPUT" else ()
            self.state = self.state.after_blocked(route_id, error_class, missing)
            trace_result = TraceResult(
                status="blocked", route_id=route_id, error_class=error_class, fields=[], message=None
            )
            model_view = {"status": "error", "error": error_class}
        after = self.milestones = milestones_reached(self.task, self.executed)
        incomplete = after < self.task_milestones_total
        if self.task_incomplete is not incomplete:  # the state is immutable: rebuild only on change
            self.task_incomplete = incomplete
            self.state = self.state.with_task_incomplete(incomplete)
        self.history.append(
            HistoryEntry(
                turn=turn,
                tool_name=tool_name,
                route_id=verdict.audit.route_id,
                arguments=arguments if isinstance(arguments, dict) else {},
                status=trace_result.status,
                error_class=trace_result.error_class,
                model_view=model_view,
                result=result,
            )
        )
        self.turns.append(
            TurnRecord(
                **base,
                decision=trace_decision,
                audit=verdict.audit.model_dump(mode="json"),
                result=trace_result,
                state_after=self.state.model_dump(mode="json"),
            )
        )
        self.after_tool_turn = True
        return after > before or new_route

    def _missing_inputs(self, route_id: str | None, arguments: Any) -> tuple[str, ...]:
        endpoint = self.cat.by_route.get(route_id) if route_id is not None else None
        if endpoint is None:
            return ()
        given = arguments if isinstance(arguments, dict) else {}
        return tuple(sorted({f.semantic_id for f in endpoint.inputs if f.required and f.name not in given}))

    @property
    def task_milestones_total(self) -> int:
        return len(self.task.hidden.milestones)
