"""The compiled form of spec/conditions.yaml: each condition a typed exposure policy."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from schemarouter.runtime.spec_model._base import FrozenModel
from schemarouter.runtime.spec_model.vocabulary import Policy, RefreshMode


class RefreshSpec(FrozenModel):
    """When and how a ranked condition changes its exposure during an episode."""

    trigger: Literal["after_tool_turn_while_incomplete"] = Field(
        description="After a completed or failed tool turn in which the task is still incomplete."
    )
    max_per_tool_turn: int = Field(description="Refreshes allowed per tool turn (at most 1).")
    max_per_episode: int = Field(description="Refreshes allowed per episode (at most 5).")
    k_per_refresh: int = Field(description="Capabilities a refresh exposes (at most 5).")
    mode: RefreshMode = Field(
        description="cumulative: added to the exposure; replace: the refresh is the exposure. The policy "
        "decides (vocabulary.POLICY_SHAPES); the compiler checks that this says the same."
    )


class ConditionSpec(FrozenModel):
    """One frozen condition."""

    id: str = Field(description="Condition id, e.g. SR-5-STATE-AWARE.")
    code: str = Field(description="Stable code C1..C5; never reused.")
    policy: Policy = Field(description="The exposure policy.")
    retrieval_query: Literal["original", "original_plus_state", "none"] = Field(
        description="What the condition retrieves with."
    )
    initial_k: int | None = Field(default=None, description="First exposure size; null if it does not rank.")
    refresh: RefreshSpec | None = Field(default=None, description="Refresh rule; null if it never refreshes.")
    description: str = Field(description="What the condition does.")
    rationale: str | None = Field(default=None, description="Why it is built this way.")


class ConditionLimitsSpec(FrozenModel):
    """The seed's limits, checked against every ranked condition at compile time."""

    initial_k: int = Field(description="Every ranked condition starts at this top-k (5).")
    max_refresh_per_tool_turn: int = Field(description="At most this many refreshes per tool turn (1).")
    max_refresh_per_episode: int = Field(description="At most this many refreshes per episode (5).")
    max_k_per_refresh: int = Field(description="At most this many capabilities per refresh (5).")
