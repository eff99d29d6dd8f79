"""Analyzers: identifiers whole and in parts, CJK n-grams, stemming, and index/query agreement."""

from __future__ import annotations

from retrieval_support import frozen_spec, toy_index
from retrieval_toy_catalog import TOY_CATALOG

from runtime.retrieval.analyzers import (
    IdentifierAnalyzer,
    NgramAnalyzer,
    make_analyzer,
    sanitize,
)
from runtime.retrieval.document import source_text
from runtime.spec_model.retriever import CharNgrams, Identifier, StemmedWords


def test_identifier_keeps_whole_and_parts() -> None:
    analyzer = IdentifierAnalyzer(Identifier(kind="identifier", index_parts=True), 64)
    assert analyzer.terms("geo.latitude") == ["geo.latitude", "geo", "latitude"]
    assert analyzer.terms("temperature_max AUTH_EXPIRED") == [
        "temperature_max",
        "temperature",
        "max",
        "auth_expired",
        "auth",
        "expired",
    ]
    assert analyzer.terms("weather.forecast.daily.v2") == [
        "weather.forecast.daily.v2",
        "weather",
        "forecast",
        "daily",
        "v2",
    ]
    assert analyzer.terms("latitude.") == ["latitude"], "a sentence's full stop is not part of a name"
    assert analyzer.terms('{"observed_semantic_ids":["geo.latitude"]}')[:4] == [
        "observed_semantic_ids",
        "observed",
        "semantic",
        "ids",
    ]


def test_identifier_without_parts() -> None:
    analyzer = IdentifierAnalyzer(Identifier(kind="identifier", index_parts=False), 64)
    assert analyzer.terms("geo.latitude place_id") == ["geo.latitude", "place_id"]


def test_ngrams_of_each_word() -> None:
    spec = CharNgrams(kind="char_ngram", min_gram=1, max_gram=2, ascii_words_whole=True)
    analyzer = NgramAnalyzer(spec, 64)
    assert analyzer.terms("날씨 예보") == ["날", "씨", "날씨", "예", "보", "예보"]
    assert analyzer.terms("東京の天気、PDF") == [
        "東",
        "京",
        "の",
        "天",
        "気",
        "東京",
        "京の",
        "の天",
        "天気",
        "pdf",
    ]


def test_ngram_sizes_follow_the_spec() -> None:
    analyzer = NgramAnalyzer(
        CharNgrams(kind="char_ngram", min_gram=2, max_gram=3, ascii_words_whole=False), 64
    )
    assert analyzer.terms("天気予") == ["天気", "気予", "天気予"]
    assert analyzer.terms("a") == ["a"], "a word shorter than min_gram is kept whole"


def test_stemmers_conflate_inflections() -> None:
    en = make_analyzer(
        StemmedWords(kind="stemmed_words", language="english", stopwords=True, ascii_fold=False), 64
    )
    assert en.terms("forecasts") == en.terms("forecast")
    assert en.terms("the") == []
    es = make_analyzer(
        StemmedWords(kind="stemmed_words", language="spanish", stopwords=True, ascii_fold=True), 64
    )
    assert es.terms("pedidos") == es.terms("pedido")
    de = make_analyzer(
        StemmedWords(kind="stemmed_words", language="german", stopwords=True, ascii_fold=True), 64
    )
    assert de.terms("Bestellungen") == de.terms("Bestellung")


def test_long_tokens_are_dropped_everywhere() -> None:
    for spec in frozen_spec().analyzers.values():
        analyzer = make_analyzer(spec, 16)
        assert analyzer.terms("a" * 17) == []
        assert analyzer.terms("b" * 10) != []


def test_lone_surrogates_are_replaced() -> None:
    assert sanitize("a\ud800b") == "a\ufffdb"


def test_index_terms_are_the_query_terms() -> None:
    """What Tantivy indexed for a field is exactly what the Python side produces for the same text."""
    index, spec = toy_index(), frozen_spec()
    for field in spec.fields:
        analyzer = index._analyzers[field.analyzer]
        expected = {t for e in TOY_CATALOG.endpoints for t in analyzer.terms(source_text(e, field.sources))}
        assert index._vocabularies[field.id] == expected, field.id


def test_indexes_of_one_spec_share_analyzers_and_rank_as_with_fresh_ones() -> None:
    """shared_analyzer: one analyzer (and word memo) per spec entry for every index of the process, so
    nested catalogs analyze a shared word once. Sharing changes no ranking: an index built on a word memo
    another index filled ranks every query exactly as one whose analyzers started empty."""
    from runtime.retrieval import analyzers as module
    from runtime.retrieval.analyzers import shared_analyzer
    from runtime.retrieval.index import RetrievalIndex

    spec = frozen_spec()
    half = TOY_CATALOG.model_copy(
        update={"endpoints": TOY_CATALOG.endpoints[: len(TOY_CATALOG.endpoints) // 2]}
    )
    module._shared.clear()
    fresh = RetrievalIndex.build(TOY_CATALOG, spec)
    module._shared.clear()
    RetrievalIndex.build(half, spec)  # fills the shared memos first
    shared = RetrievalIndex.build(TOY_CATALOG, spec)
    for name, entry in spec.analyzers.items():
        assert shared.analyzer(name) is shared_analyzer(entry, spec.max_token_bytes)
        assert fresh.analyzer(name) is not shared.analyzer(name)
    queries = [source_text(e, ("summary", "description")) for e in TOY_CATALOG.endpoints]
    queries += ["send a message", "geo.latitude lookup", "\ud800 lone surrogate", ""]
    for query in queries:
        assert shared.search(query, 5) == fresh.search(query, 5), query
