"""Counting the tokens of a prompt as the engine builds it, with per-schema and per-text caches.

Recipe (frozen in ``spec/engine.yaml`` ``token_accounting``): every message costs
``per_message_overhead`` plus the tokens of its role and of its content (tool calls are counted as
their JSON rendering); the reply is primed with ``reply_priming`` tokens; every exposed tool costs
the tokens of its schema rendered exactly as sent (``Endpoint.tool_schema_json``).
Tool-schema tokens are the tools' part alone; input tokens are the whole prompt.

A caller that shows the same tool set in many turns passes it as ``tools_key`` (any hashable object
that stands for exactly those texts, e.g. the rendered set itself), and the set's total is summed once.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from runtime.tokens.tokenizer import Tokenizer


@dataclass(frozen=True)
class PromptTokens:
    schema_tokens: int
    input_tokens: int


@dataclass
class TokenCounter:
    tokenizer: Tokenizer
    per_message_overhead: int = 3
    reply_priming: int = 3
    _text_cache: dict[str, int] = field(default_factory=dict)
    _tools_cache: dict[Hashable, int] = field(default_factory=dict)

    def text(self, text: str) -> int:
        cached = self._text_cache.get(text)
        if cached is None:
            cached = self.tokenizer.count(text)
            if len(self._text_cache) < 200_000:
                self._text_cache[text] = cached
        return cached

    def message(self, role: str, content: str) -> int:
        return self.per_message_overhead + self.text(role) + self.text(content)

    def tools(self, tool_schema_texts: Sequence[str], key: Hashable | None = None) -> int:
        """Tokens of the tool schemas; with ``key``, the total is kept for the next turn that shows them."""
        if key is None:
            return sum(self.text(t) for t in tool_schema_texts)
        cached = self._tools_cache.get(key)
        if cached is None:
            cached = sum(self.text(t) for t in tool_schema_texts)
            if len(self._tools_cache) < 50_000:
                self._tools_cache[key] = cached
        return cached

    def prompt(
        self,
        messages: Sequence[tuple[str, str]],
        tool_schema_texts: Sequence[str],
        *,
        tools_key: Hashable | None = None,
    ) -> PromptTokens:
        """Tokens of one model turn: messages as (role, content-text) pairs, tools as rendered JSON."""
        schema = self.tools(tool_schema_texts, tools_key)
        body = sum(self.message(role, content) for role, content in messages) + self.reply_priming
        return PromptTokens(schema_tokens=schema, input_tokens=body + schema)
