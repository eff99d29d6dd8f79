"""Token accounting with a real BPE tokenizer (cl100k_base by default, or a user's tokenizer.json)."""

from runtime.tokens.counter import PromptTokens, TokenCounter
from runtime.tokens.tokenizer import Tokenizer, TokenizerConfig, load_tokenizer

__all__ = ["PromptTokens", "TokenCounter", "Tokenizer", "TokenizerConfig", "load_tokenizer"]
