"""spec/agent.yaml as a typed model, parsed from the compiled bundle's raw data (``from_compiled``).

The default agent and the answer action are declared; each agent's own settings section is kept as
the file has it (extra="allow") and read by that agent (``section``)."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONObject
from runtime.spec_model.compiled import CompiledSpec


class MissingToolRuleSpec(FrozenModel):
    action: str
    score: dict[str, float]
    min_score: float
    exclude_destructive_without_grant: bool
    never_repeat_identical_failed_call: bool


class AgentSpec(FrozenModel):
    """agent.yaml: the default agent and one settings section per agent name."""

    model_config = ConfigDict(extra="allow")

    default_agent: str = Field(description="Agent used when none is named.")
    answer_action: Literal["unnamed", "named"] = Field(
        default="unnamed",
        description="Whether every prompt names the answer action final_answer (runtime/prompt.py "
        "ANSWER_SENTENCE and ANSWER_TOOL). Absent: unnamed, 0.14's and 0.16's frozen prompts.",
    )

    @classmethod
    def from_compiled(cls, compiled: CompiledSpec) -> AgentSpec:
        """spec/agent.yaml of the compiled bundle."""
        return cls.model_validate(compiled.raw["agent"])

    def section(self, name: str) -> JSONObject | None:
        """Agent ``name``'s settings, or None when agent.yaml has no section for it."""
        value = (self.model_extra or {}).get(name)
        return value if isinstance(value, dict) else None

    def missing_tool_rule(self) -> MissingToolRuleSpec:
        return MissingToolRuleSpec.model_validate((self.section("reference") or {})["missing_tool_rule"])
