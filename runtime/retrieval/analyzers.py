"""Text analyzers, one definition used for both documents and queries.

Each analyzer turns text into the exact terms Tantivy indexes:

- ``stemmed_words`` runs inside Tantivy (simple tokenizer, lower case, optional ASCII folding and
  stop words, Snowball stemmer); queries go through the very same ``TextAnalyzer.analyze``.
- ``char_ngram`` and ``identifier`` run in Python: documents are indexed as their space-joined terms
  under Tantivy's whitespace tokenizer, and queries use the same Python function, so index and query
  terms cannot drift apart.

No analyzer raises on any string: lone surrogates (which Tantivy cannot receive) become U+FFFD first,
and tokens longer than ``max_token_bytes`` are dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

import tantivy

from schemarouter.runtime.retrieval.spec import AnalyzerSpec, CharNgrams, Identifier, StemmedWords

_surrogates = re.compile("[\ud800-\udfff]")
_words = re.compile(r"[^\W_]+")
_identifiers = re.compile(r"[A-Za-z0-9_]+(?:[.:\-][A-Za-z0-9_]+)*", re.ASCII)
_identifier_separators = re.compile(r"[._:\-]+")


def sanitize(text: str) -> str:
    """Text Tantivy can receive: lone surrogates replaced by U+FFFD."""
    return _surrogates.sub("\ufffd", text)


class Analyzer(Protocol):
    """What the index needs of an analyzer."""

    def tantivy_analyzer(self) -> tantivy.TextAnalyzer: ...

    def index_text(self, text: str) -> str: ...

    def terms(self, text: str) -> list[str]: ...


class TantivyStemmer:
    """``stemmed_words``: analysis inside Tantivy."""

    def __init__(self, spec: StemmedWords, max_token_bytes: int) -> None:
        self.spec = spec
        self.max_token_bytes = max_token_bytes
        builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        # RemoveLongFilter keeps tokens strictly shorter than its limit.
        builder = builder.filter(tantivy.Filter.remove_long(max_token_bytes + 1))
        builder = builder.filter(tantivy.Filter.lowercase())
        if spec.ascii_fold:
            builder = builder.filter(tantivy.Filter.ascii_fold())
        if spec.stopwords:
            builder = builder.filter(tantivy.Filter.stopword(spec.language))
        builder = builder.filter(tantivy.Filter.stemmer(spec.language))
        self._analyzer = builder.build()

    def tantivy_analyzer(self) -> tantivy.TextAnalyzer:
        return self._analyzer

    def index_text(self, text: str) -> str:
        return sanitize(text)

    def terms(self, text: str) -> list[str]:
        return list(self._analyzer.analyze(sanitize(text)))


class _PythonAnalyzer:
    """Shared shape of the analyzers that run in Python."""

    max_token_bytes: int

    def _tokens(self, text: str) -> list[str]:
        raise NotImplementedError

    def tantivy_analyzer(self) -> tantivy.TextAnalyzer:
        return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()

    def index_text(self, text: str) -> str:
        return " ".join(self.terms(text))

    def terms(self, text: str) -> list[str]:
        limit = self.max_token_bytes
        return [t for t in self._tokens(sanitize(text)) if len(t.encode("utf-8")) <= limit]


@dataclass(frozen=True)
class NgramAnalyzer(_PythonAnalyzer):
    """``char_ngram``: every word's character n-grams (a word shorter than min_gram is kept whole)."""

    spec: CharNgrams
    max_token_bytes: int

    def _tokens(self, text: str) -> list[str]:
        lo, hi, whole_ascii = self.spec.min_gram, self.spec.max_gram, self.spec.ascii_words_whole
        out: list[str] = []
        for word in _words.findall(text.lower()):
            if len(word) < lo or (whole_ascii and word.isascii()):
                out.append(word)
                continue
            for n in range(lo, hi + 1):
                out.extend(word[i : i + n] for i in range(len(word) - n + 1))
        return out


@dataclass(frozen=True)
class IdentifierAnalyzer(_PythonAnalyzer):
    """``identifier``: dotted / snake_case / kebab identifiers whole (lower case), then their parts."""

    spec: Identifier
    max_token_bytes: int

    def _tokens(self, text: str) -> list[str]:
        out: list[str] = []
        for match in _identifiers.findall(text.lower()):
            whole = match.strip("_")
            if not whole:
                continue
            out.append(whole)
            if self.spec.index_parts:
                parts = [p for p in _identifier_separators.split(whole.replace("_", ".")) if p]
                if len(parts) > 1:
                    out.extend(parts)
        return out


def make_analyzer(spec: AnalyzerSpec, max_token_bytes: int) -> Analyzer:
    """The analyzer a spec entry describes."""
    if isinstance(spec, StemmedWords):
        return TantivyStemmer(spec, max_token_bytes)
    if isinstance(spec, CharNgrams):
        return NgramAnalyzer(spec, max_token_bytes)
    return IdentifierAnalyzer(spec, max_token_bytes)
