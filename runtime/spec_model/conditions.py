"""The compiled form of spec/conditions.yaml: each condition a typed exposure policy."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from runtime.core.frozen_model import FrozenModel
from runtime.spec_model.vocabulary import RefreshMode


class KeepRule(FrozenModel):
    """What a ``replace_keep`` refresh keeps beside its new routes (each part optional)."""

    original_top: int = Field(
        default=0, description="Keep the top n of the original query's ranking (0: none)."
    )
    last_attempted: bool = Field(
        default=False,
        description="Keep the last exposed route the agent attempted (the state's last_attempted_route_id, "
        "when the contract declares it).",
    )


class RefreshSpec(FrozenModel):
    """When and how a ranked condition changes its exposure during an episode."""

    trigger: Literal["after_tool_turn_while_incomplete"] = Field(
        description="After a completed or failed tool turn in which the task is still incomplete."
    )
    max_per_tool_turn: int = Field(description="Refreshes allowed per tool turn (at most 1).")
    max_per_episode: int = Field(description="Refreshes allowed per episode (at most 5).")
    k_per_refresh: int = Field(description="Capabilities a refresh exposes (at most 5).")
    mode: RefreshMode = Field(
        description="cumulative: added to the exposure; replace: the refresh is the exposure; add: the "
        "refresh's routes join the exposure (at most `cap`, oldest dropped first); replace_keep: the "
        "refresh is the exposure, plus the routes of `keep`. The policy kind lists the modes it "
        "implements (runtime/exposure/registry.py); the compiler checks this is one of them."
    )
    cap: int | None = Field(default=None, description="mode add: at most this many routes exposed.")
    keep: KeepRule | None = Field(default=None, description="mode replace_keep: what is kept.")
    cursor: bool = Field(
        default=False,
        description="A repeated refresh with the same input (query and state) shows the next page of "
        "k_per_refresh routes of its ranking, not the same page again.",
    )


class ConditionRetrieverSpec(FrozenModel):
    """The retrieval strategy one condition uses instead of the experiment's retriever.yaml strategy."""

    code: str = Field(description="A registered retrieval strategy code (runtime/retrieval/strategies/).")
    params: dict[str, Any] = Field(default_factory=dict, description="The strategy's parameters.")


class ConditionSpec(FrozenModel):
    """One frozen condition."""

    id: str = Field(description="Condition id, e.g. SR-5-STATE-AWARE.")
    code: str = Field(description="Stable code C1..C5; never reused.")
    policy: str = Field(
        description="The exposure policy kind: one registered in runtime/exposure/kinds/ (checked by the "
        "compiler against the registry)."
    )
    retrieval_query: Literal["original", "original_plus_state", "none"] = Field(
        description="What the condition retrieves with."
    )
    initial_k: int | None = Field(default=None, description="First exposure size; null if it does not rank.")
    refresh: RefreshSpec | None = Field(default=None, description="Refresh rule; null if it never refreshes.")
    params: dict[str, Any] = Field(
        default_factory=dict, description="The policy kind's own parameters (validated by its model)."
    )
    retriever: ConditionRetrieverSpec | None = Field(
        default=None,
        description="This condition's retrieval strategy; null: the experiment's retriever.yaml.",
    )
    description: str = Field(description="What the condition does.")
    rationale: str | None = Field(default=None, description="Why it is built this way.")


class ConditionLimitsSpec(FrozenModel):
    """The seed's limits, checked against the conditions the protocol names (default: every ranked one)."""

    initial_k: int = Field(description="Every bound condition starts at this top-k (5).")
    max_refresh_per_tool_turn: int = Field(description="At most this many refreshes per tool turn (1).")
    max_refresh_per_episode: int = Field(description="At most this many refreshes per episode (5).")
    max_k_per_refresh: int = Field(description="At most this many capabilities per refresh (5).")
