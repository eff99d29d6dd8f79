"""The built-in reference agent: deterministic, competent, and limited to what is exposed.

It models a tool-calling model that understood the request: it follows the task's plan as a model
that read the request would (the plan stands in for that understanding; it never reaches retrieval),
but it only ever sees and calls the exposed tools.

* The step it needs is exposed: it calls it, binding arguments from the values the user gave and from
  observed typed outputs by semantic ID and unit, and carrying stable identifiers verbatim.
* The step is not exposed: it calls the exposed tool that best matches the needed capability
  (``spec/agent.yaml`` ``missing_tool_rule``: semantic IDs first, then name tokens), never a
  destructive tool the user did not grant, and never an identical call that already failed. That call
  fails or completes without the needed output, which is a tool turn, so refresh triggers apply.
* Nothing exposed shares anything with the needed capability: it says it cannot proceed.
* Free text in tool output is ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from runtime.agents.protocol import AgentView, CannotProceed, Decision, FinalAnswer, ToolCall
from runtime.agents.registry import register_agent
from runtime.authorization.execution_gate import grant_covers
from runtime.catalog.model import Endpoint
from runtime.core.json_value import JSONObject
from runtime.simulator.binding import bind_arguments
from runtime.simulator.calls import ExecutedCall
from runtime.surface.model import PlanStep, Task
from runtime.surface.plan import plan_position

if TYPE_CHECKING:
    from runtime.agents.catalog_view import AgentCatalog

_VERSION = re.compile(r"^v\d+$")


@dataclass(frozen=True)
class MissingToolRule:
    semantic_id_weight: float = 10.0
    name_token_weight: float = 1.0
    min_score: float = 1.0
    exclude_destructive_without_grant: bool = True
    never_repeat_identical_failed_call: bool = True


def name_tokens(endpoint: Endpoint) -> frozenset[str]:
    parts = re.split(r"[._\-]+", f"{endpoint.route_id}.{endpoint.name}".lower())
    return frozenset(p for p in parts if p and not _VERSION.match(p))


def semantic_ids(endpoint: Endpoint) -> frozenset[str]:
    return frozenset(f.semantic_id for f in (*endpoint.inputs, *endpoint.outputs))


class RouteFeatures:
    """(semantic IDs, name tokens) per route of one catalog, computed once per route.

    Keyed by route ID, so one instance serves one catalog (route IDs are unique within it)."""

    def __init__(self) -> None:
        self._by_route: dict[str, tuple[frozenset[str], frozenset[str]]] = {}

    def of(self, endpoint: Endpoint) -> tuple[frozenset[str], frozenset[str]]:
        hit = self._by_route.get(endpoint.route_id)
        if hit is None:
            hit = self._by_route[endpoint.route_id] = (semantic_ids(endpoint), name_tokens(endpoint))
        return hit


class ReferenceAgent:
    name = "reference"

    def __init__(
        self,
        *,
        task: Task,
        catalog_by_route: Mapping[str, Endpoint],
        rule: MissingToolRule,
        features: RouteFeatures | None = None,
    ):
        self._task = task
        self._catalog = catalog_by_route
        self._rule = rule
        self._features = features if features is not None else RouteFeatures()

    def decide(self, view: AgentView) -> Decision:
        executed = _executed_calls(view)
        step = _next_step(self._task, executed)
        observations = [c.result for c in executed if c.result.status == "ok"]
        if step is None:
            values = {f.semantic_id: f.value for f in observations[-1].fields} if observations else {}
            return FinalAnswer(values=values, text="done")
        exposed = view.exposed_by_route()
        literal = dict(step.literal_args)
        target = exposed.get(step.route_id)
        if target is not None:
            return ToolCall(target.name, bind_arguments(target, literal, observations))
        needed = self._catalog.get(step.route_id)
        if needed is None:
            return CannotProceed(f"no tool for {step.route_id}")
        failed = {(h.tool_name, _key(h.arguments)) for h in view.history if h.status != "ok"}
        best: tuple[float, str, ToolCall] | None = None
        for candidate in view.exposed:
            score = self._score(needed, candidate)
            if score < self._rule.min_score:
                continue
            if (
                self._rule.exclude_destructive_without_grant
                and candidate.side_effect == "destructive"
                and not grant_covers(self._task.grants, candidate.route_id, literal)
            ):
                continue
            call = ToolCall(candidate.name, bind_arguments(candidate, literal, observations))
            if (
                self._rule.never_repeat_identical_failed_call
                and (call.tool_name, _key(call.arguments)) in failed
            ):
                continue
            if best is None or (-score, candidate.route_id) < (-best[0], best[1]):
                best = (score, candidate.route_id, call)
        if best is None:
            return CannotProceed("no exposed tool matches the needed capability")
        return best[2]

    def _score(self, needed: Endpoint, candidate: Endpoint) -> float:
        needed_ids, needed_names = self._features.of(needed)
        candidate_ids, candidate_names = self._features.of(candidate)
        shared_ids = len(needed_ids & candidate_ids)
        shared_names = len(needed_names & candidate_names)
        return self._rule.semantic_id_weight * shared_ids + self._rule.name_token_weight * shared_names


def _key(arguments: JSONObject) -> str:
    return _KEY_ENCODER.encode(arguments)


# json.dumps with these options, built once (json.dumps builds an encoder per call for any option).
_KEY_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)


def _executed_calls(view: AgentView) -> list[ExecutedCall]:
    """The executed calls (allowed by the gate), rebuilt from the agent's own history."""
    return [
        ExecutedCall(route_id=h.result.route_id, arguments=h.arguments, result=h.result)
        for h in view.history
        if h.result is not None
    ]


def _next_step(task: Task, executed: list[ExecutedCall]) -> PlanStep | None:
    """The plan step a model that understood the request would take next; None when done."""
    plan = task.hidden.plan
    position = plan_position(plan, executed)
    return plan[position] if position < len(plan) else None


@register_agent("reference")
def _reference(
    *, task: Task, catalog: AgentCatalog, settings: Mapping[str, Any], options: dict[str, Any]
) -> ReferenceAgent:
    rule = settings["missing_tool_rule"]
    return ReferenceAgent(
        task=task,
        catalog_by_route=catalog.by_route,
        features=catalog.features,
        rule=MissingToolRule(
            semantic_id_weight=float(rule["score"]["semantic_id_weight"]),
            name_token_weight=float(rule["score"]["name_token_weight"]),
            min_score=float(rule["min_score"]),
            exclude_destructive_without_grant=bool(rule["exclude_destructive_without_grant"]),
            never_repeat_identical_failed_call=bool(rule["never_repeat_identical_failed_call"]),
        ),
    )
