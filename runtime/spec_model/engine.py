"""spec/engine.yaml as a typed model, parsed from the compiled bundle's raw data (``from_compiled``).

Every key of the file is declared here (extra="forbid"): a key the engine does not read is refused,
never dropped, and the documentation-only keys (rationale, progress) are declared as such."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from runtime.core.frozen_model import FrozenModel
from runtime.spec_model.compiled import CompiledSpec
from runtime.tokens import TokenizerConfig


class TokenAccounting(FrozenModel):
    per_message_overhead: int = Field(description="Tokens charged per message besides role and content.")
    reply_priming: int = Field(description="Tokens charged once per prompt for priming the reply.")
    rationale: str | None = Field(default=None, description="Why (documentation only).")


class EngineSpec(FrozenModel):
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

    @classmethod
    def from_compiled(cls, compiled: CompiledSpec) -> EngineSpec:
        """spec/engine.yaml of the compiled bundle."""
        return cls.model_validate(compiled.raw["engine"])

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
