"""Text analyzers, one definition used for both documents and queries.

Every analyzer is two steps: a word pattern splits the (sanitized, lower-cased) text into words,
and each word maps to its terms. Documents are indexed as their space-joined terms under Tantivy's
whitespace tokenizer, and queries go through the very same functions, so index and query terms
cannot drift apart.

- ``stemmed_words``: Unicode alphanumeric runs; per word, Tantivy's lower-case, ASCII-folding,
  stop-word and Snowball stemmer filters (``TextAnalyzer.analyze`` on the single word);
- ``char_ngram``: Unicode alphanumeric runs; per word, its character n-grams;
- ``identifier``: ASCII dotted / snake_case / kebab runs; per word, the whole and its parts.

A word's terms are memoized (a pure function of the word), so known vocabulary costs one lookup.
No analyzer raises on any string: lone surrogates (which Tantivy cannot receive) become U+FFFD first,
and terms longer than ``max_token_bytes`` are dropped.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from itertools import chain

import tantivy

from runtime.spec_model.retriever import AnalyzerSpec, CharNgrams, Identifier, StemmedWords

_surrogates = re.compile("[\ud800-\udfff]")
WORDS = re.compile(r"[^\W_]+")
IDENTIFIERS = re.compile(r"[A-Za-z0-9_]+(?:[.:\-][A-Za-z0-9_]+)*", re.ASCII)
_identifier_separators = re.compile(r"[._:\-]+")
_MEMO_WORDS = 100_000


def sanitize(text: str) -> str:
    """Text Tantivy can receive: lone surrogates replaced by U+FFFD."""
    return _surrogates.sub("\ufffd", text)


def prepare(text: str) -> str:
    """What every word pattern runs on: sanitized, lower-cased text."""
    return sanitize(text).lower()


class Analyzer(ABC):
    """A word pattern and a memoized word -> terms function."""

    pattern: re.Pattern[str]

    def __init__(self, max_token_bytes: int) -> None:
        self.max_token_bytes = max_token_bytes
        self._memo: dict[str, tuple[str, ...]] = {}

    @abstractmethod
    def word_terms(self, word: str) -> list[str]:
        """The terms of one word (before the length limit)."""

    def tantivy_analyzer(self) -> tantivy.TextAnalyzer:
        """What the index registers: the terms are already made, so only split on spaces."""
        return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()

    def index_text(self, text: str) -> str:
        """A document's field text as Tantivy receives it."""
        return " ".join(self.terms(text))

    def terms(self, text: str) -> list[str]:
        """The terms of a text, in order, repeats kept."""
        return self.terms_of_words(self.pattern.findall(prepare(text)))

    def terms_of_words(self, words: list[str]) -> list[str]:
        """The terms of words this analyzer's pattern found in prepared text."""
        memo = self._memo
        try:
            return list(chain.from_iterable(map(memo.__getitem__, words)))
        except KeyError:
            pass
        if len(memo) >= _MEMO_WORDS:
            memo.clear()
        limit = self.max_token_bytes
        out: list[str] = []
        for word in words:
            terms = memo.get(word)
            if terms is None:
                terms = memo[word] = tuple(
                    t for t in self.word_terms(word) if len(t.encode("utf-8")) <= limit
                )
            out.extend(terms)
        return out


class StemmedAnalyzer(Analyzer):
    """``stemmed_words``: per word, Tantivy's lower case, optional ASCII folding and stop words, stemmer."""

    pattern = WORDS

    def __init__(self, spec: StemmedWords, max_token_bytes: int) -> None:
        super().__init__(max_token_bytes)
        self.spec = spec
        builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.lowercase())
        if spec.ascii_fold:
            builder = builder.filter(tantivy.Filter.ascii_fold())
        if spec.stopwords:
            builder = builder.filter(tantivy.Filter.stopword(spec.language))
        self._word_analyzer = builder.filter(tantivy.Filter.stemmer(spec.language)).build()

    def word_terms(self, word: str) -> list[str]:
        return list(self._word_analyzer.analyze(word))


class NgramAnalyzer(Analyzer):
    """``char_ngram``: every word's character n-grams (a word shorter than min_gram is kept whole)."""

    pattern = WORDS

    def __init__(self, spec: CharNgrams, max_token_bytes: int) -> None:
        super().__init__(max_token_bytes)
        self.spec = spec

    def word_terms(self, word: str) -> list[str]:
        lo, hi = self.spec.min_gram, self.spec.max_gram
        if len(word) < lo or (self.spec.ascii_words_whole and word.isascii()):
            return [word]
        return [word[i : i + n] for n in range(lo, hi + 1) for i in range(len(word) - n + 1)]


class IdentifierAnalyzer(Analyzer):
    """``identifier``: dotted / snake_case / kebab identifiers whole (lower case), then their parts."""

    pattern = IDENTIFIERS

    def __init__(self, spec: Identifier, max_token_bytes: int) -> None:
        super().__init__(max_token_bytes)
        self.spec = spec

    def word_terms(self, word: str) -> list[str]:
        whole = word.strip("_")
        if not whole:
            return []
        if not self.spec.index_parts:
            return [whole]
        parts = [p for p in _identifier_separators.split(whole.replace("_", ".")) if p]
        return [whole, *parts] if len(parts) > 1 else [whole]


# Analyzers by (spec entry, token limit): ``shared_analyzer``'s, at most _SHARED_LIMIT of them.
_shared: dict[tuple[str, str, int], Analyzer] = {}
_SHARED_LIMIT = 64


def shared_analyzer(spec: AnalyzerSpec, max_token_bytes: int) -> Analyzer:
    """The process's one analyzer for this spec entry and token limit. An analyzer is a pure function
    of its spec with a word memo, so every index built from the same entry can share it: the nested
    catalogs (100 in 250 in 500) then analyze each shared word once, and their queries share the memo."""
    key = (type(spec).__name__, spec.model_dump_json(), max_token_bytes)
    found = _shared.get(key)
    if found is None:
        if len(_shared) >= _SHARED_LIMIT:
            _shared.clear()
        found = _shared[key] = make_analyzer(spec, max_token_bytes)
    return found


def make_analyzer(spec: AnalyzerSpec, max_token_bytes: int) -> Analyzer:
    """The analyzer a spec entry describes (a new one, with an empty memo)."""
    if isinstance(spec, StemmedWords):
        return StemmedAnalyzer(spec, max_token_bytes)
    if isinstance(spec, CharNgrams):
        return NgramAnalyzer(spec, max_token_bytes)
    return IdentifierAnalyzer(spec, max_token_bytes)
