"""The task surface's types: what the agent may see (``VisibleTask``) and what only scoring may see.

A ``Task`` row of ``catalogs/surface.jsonl`` holds the visible keys at top level and everything else
under ``hidden``. The engine and the retriever receive ``task.visible()`` only; ``hidden`` feeds the
task check, the next-required-route metric and the ORACLE condition's exposure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONValue
from runtime.simulator.world import World


class Grant(FrozenModel):
    """The user's explicit authorization of a destructive route."""

    route_id: str = Field(description="The destructive route the user authorized.")
    arguments: Mapping[str, Any] | None = Field(
        default=None,
        description="Argument values the call must carry (values the user stated); null: any arguments.",
    )

    def covers(self, route_id: str, arguments: Mapping[str, JSONValue]) -> bool:
        """Whether this grant authorizes a call: same route and every pinned argument equal."""
        if route_id != self.route_id:
            return False
        return all(arguments.get(k) == v for k, v in (self.arguments or {}).items())


class VisibleTask(FrozenModel):
    """What the agent and the retriever may see of a task."""

    task_id: str = Field(description="Stable task ID: <stratum code>-<language>-<nn>.")
    stratum: str = Field(description="Stratum ID from spec/strata.yaml.")
    language: str = Field(description="Language code of the query.")
    query: str = Field(description="The user's request in natural language; never names a route.")
    grants: tuple[Grant, ...] = Field(default=(), description="The user's destructive-route authorizations.")


class PlanStep(FrozenModel):
    """One step of the gold plan: a route, the values the query supplies, and the expected outcome."""

    route_id: str = Field(description="The route this step calls.")
    literal_args: dict[str, Any] = Field(
        default_factory=dict, description="Arguments whose values the query states (canonical form)."
    )
    expect: str = Field(
        default="ok", description="ok, or the typed error class this call meets first (recoverable failure)."
    )


class ExpectedValue(FrozenModel):
    """A typed output value that must be observed."""

    name: str = Field(description="Output field name.")
    semantic_id: str = Field(description="Semantic ID of the output field.")
    unit: str | None = Field(default=None, description="Unit of the value, if any.")
    value: Any = Field(description="The expected value (exact JSON equality).")


class Milestone(FrozenModel):
    """A required state transition: the route returned ok with these typed values."""

    route_id: str = Field(description="The route whose ok result marks the transition.")
    values: tuple[ExpectedValue, ...] = Field(
        description="Output values that result must carry (the ones later steps or the answer use)."
    )


class Hazards(FrozenModel):
    """What in the task invites an unsafe action."""

    destructive_routes: tuple[str, ...] = Field(
        default=(),
        description="Ungranted destructive routes near the plan (look-alikes, same domain).",
    )
    injected_texts: tuple[str, ...] = Field(
        default=(), description="Instruction-like free text planted in tool-result messages of this world."
    )


class HiddenTask(FrozenModel):
    """Scoring-only parts of a task. Never shown to the agent or the retriever."""

    intent: str = Field(description="The generator's intent this task instantiates.")
    slots: dict[str, Any] = Field(description="Slot values (canonical) the query was rendered with.")
    plan: tuple[PlanStep, ...] = Field(description="The gold plan, a small state machine (see plan.py).")
    milestones: tuple[Milestone, ...] = Field(description="Required state transitions, in plan order.")
    expected_answer: tuple[ExpectedValue, ...] = Field(description="Values the final answer rests on.")
    world: World = Field(description="The initial world.")
    expected_world: World = Field(description="The world after the gold plan (business state compared).")
    hazards: Hazards = Field(description="Destructive distractors and planted instructions.")
    distractors: dict[str, tuple[str, ...]] = Field(
        default_factory=dict,
        description="Distractor kind -> routes of catalog_100 that are that kind of distractor here.",
    )


class Task(FrozenModel):
    """One task of the frozen surface."""

    task_id: str = Field(description="Stable task ID: <stratum code>-<language>-<nn>.")
    stratum: str = Field(description="Stratum ID from spec/strata.yaml.")
    language: str = Field(description="Language code of the query.")
    query: str = Field(description="The user's request in natural language; never names a route.")
    grants: tuple[Grant, ...] = Field(default=(), description="The user's destructive-route authorizations.")
    hidden: HiddenTask = Field(description="Scoring-only parts; never shown to the agent or the retriever.")

    def visible(self) -> VisibleTask:
        """The task without its hidden parts: all the engine and the retriever may receive."""
        return VisibleTask(
            task_id=self.task_id,
            stratum=self.stratum,
            language=self.language,
            query=self.query,
            grants=self.grants,
        )
