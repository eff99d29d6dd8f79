"""Typed views of spec/engine.yaml and spec/agent.yaml, parsed from the compiled bundle's raw data.

Every key of the files is declared here (extra="forbid"): a key the engine does not read is refused,
never dropped, and the documentation-only keys (rationale, definition) are declared as such."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from runtime.tokens import TokenizerConfig


class TokenAccounting(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    per_message_overhead: int = Field(description="Tokens charged per message besides role and content.")
    reply_priming: int = Field(description="Tokens charged once per prompt for priming the reply.")
    rationale: str | None = Field(default=None, description="Why (documentation only).")


class EngineSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    max_model_turns: int = Field(description="Maximum model turns per episode.")
    max_consecutive_no_progress_turns: int = Field(
        description="Stop after this many tool turns without progress."
    )
    system_prompt: str = Field(description="The system message of every prompt.")
    tokenizer: dict[str, Any] = Field(description="Tokenizer settings (kind, encoding, sha256, path).")
    token_accounting: TokenAccounting = Field(description="Chat-format token recipe.")
    progress: dict[str, str] | None = Field(
        default=None, description="What counts as progress, in words (documentation only)."
    )

    def tokenizer_config(self, override_path: str | None = None) -> TokenizerConfig:
        if override_path:
            return TokenizerConfig(kind="huggingface", path=override_path, sha256=None)
        t = self.tokenizer
        return TokenizerConfig(
            kind=t.get("kind", "tiktoken"),
            encoding=t.get("encoding", "cl100k_base"),
            sha256=t.get("sha256"),
            path=t.get("path"),
        )


class MissingToolRuleSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    action: str
    score: dict[str, float]
    min_score: float
    exclude_destructive_without_grant: bool
    never_repeat_identical_failed_call: bool


class AgentSpec(BaseModel):
    """agent.yaml: the default agent and one settings section per agent name."""

    model_config = ConfigDict(frozen=True, extra="allow")

    default_agent: str = Field(description="Agent used when none is named.")
    answer_action: Literal["unnamed", "named"] = Field(
        default="unnamed",
        description="Whether every prompt names the answer action final_answer (runtime/prompt.py "
        "ANSWER_SENTENCE and ANSWER_TOOL). Absent: unnamed, 0.14's and 0.16's frozen prompts.",
    )

    def section(self, name: str) -> dict[str, Any] | None:
        """Agent ``name``'s settings, or None when agent.yaml has no section for it."""
        value = (self.model_extra or {}).get(name)
        return value if isinstance(value, dict) else None

    def missing_tool_rule(self) -> MissingToolRuleSpec:
        return MissingToolRuleSpec.model_validate((self.section("reference") or {})["missing_tool_rule"])
