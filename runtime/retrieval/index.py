"""RetrievalIndex: one in-RAM Tantivy index per catalog, built once and shared by every retriever.

Build, in order:
1. sort endpoints by route ID; a document's ordinal is its position, so DocId order is route ID order;
2. for every spec'd field, analyze the endpoint's source text (Python analyzers emit space-joined terms);
3. add all documents with one single-threaded writer, commit once: one segment, global BM25 statistics;
4. read each field's vocabulary, so a query keeps only terms that can match.

Query (``search``): analyze the text with each field's analyzer, keep terms in that field's vocabulary,
and OR boosted term queries (boost = field boost x term count in the query). Text is never parsed as
query syntax, so no input string can fail or change the query's shape. Hits are ordered by score,
then route ID (Tantivy's own tie order, since document order is route ID order).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import tantivy

from runtime.catalog.model import Catalog, Endpoint
from runtime.core.errors import SchemaRouterError
from runtime.retrieval.analyzers import Analyzer, prepare, shared_analyzer
from runtime.retrieval.document import source_text
from runtime.spec_model.retriever import RetrieverSpec

_ORDINAL = "ordinal"
_CACHED_COUNTS = 8
_WRITER_HEAP_BYTES = 512_000_000  # large enough that 50k endpoints fit in one segment


@dataclass(frozen=True)
class Ranking:
    """Route IDs in rank order with their scores (scores are for audit only)."""

    route_ids: tuple[str, ...]
    scores: tuple[float, ...]


class RetrievalIndex:
    """A catalog's search index. Build with ``RetrievalIndex.build``; immutable afterwards."""

    def __init__(
        self,
        *,
        spec: RetrieverSpec,
        route_ids: tuple[str, ...],
        index: tantivy.Index,
        analyzers: dict[str, Analyzer],
        vocabularies: dict[str, frozenset[str]],
        build_seconds: float,
        field_texts: tuple[tuple[str, ...], ...] = (),
    ) -> None:
        self.spec = spec
        self.route_ids = route_ids
        self.build_seconds = build_seconds
        self._index = index
        self._schema = index.schema
        self._searcher = index.searcher()
        self._analyzers = analyzers
        self._vocabularies = vocabularies
        self._boosts = {f.id: f.boost for f in spec.fields}
        self._analyzer_of = {f.id: f.analyzer for f in spec.fields}
        # Per analyzer (in spec order of first use): term -> the fields, in spec order, that hold it.
        self._postings: list[tuple[Analyzer, dict[str, tuple[str, ...]]]] = []
        for name in dict.fromkeys(f.analyzer for f in spec.fields):
            fields = [f.id for f in spec.fields if f.analyzer == name]
            holders: dict[str, list[str]] = {}
            for field_id in fields:
                for term in vocabularies[field_id]:
                    holders.setdefault(term, []).append(field_id)
            self._postings.append((analyzers[name], {t: tuple(fs) for t, fs in holders.items()}))
        self._clauses: list[dict[tuple[str, int], tuple[tuple[tantivy.Occur, tantivy.Query], ...]]] = [
            {} for _ in self._postings
        ]
        # Per document (by ordinal), the text Tantivy indexed for each spec field, in spec order, and the
        # term sets of the documents ``matching`` was asked about.
        self._field_texts = field_texts
        self._field_position = {f.id: i for i, f in enumerate(spec.fields)}
        self._ordinal = {route_id: i for i, route_id in enumerate(route_ids)}
        self._doc_terms: dict[int, tuple[frozenset[str], ...]] = {}

    @property
    def size(self) -> int:
        return len(self.route_ids)

    @classmethod
    def build(cls, catalog: Catalog | Sequence[Endpoint], spec: RetrieverSpec) -> RetrievalIndex:
        """Index a catalog (or any endpoint sequence, e.g. a scaled synthetic one)."""
        started = time.perf_counter()
        endpoints = sorted(
            catalog.endpoints if isinstance(catalog, Catalog) else catalog, key=lambda e: e.route_id
        )
        route_ids = tuple(e.route_id for e in endpoints)
        if len(set(route_ids)) != len(route_ids):
            raise SchemaRouterError("retrieval index: the catalog has duplicate route IDs")
        analyzers = {name: shared_analyzer(a, spec.max_token_bytes) for name, a in spec.analyzers.items()}

        builder = tantivy.SchemaBuilder()
        for field in spec.fields:
            builder.add_text_field(
                field.id, stored=False, tokenizer_name=f"sr_{field.analyzer}", index_option="freq"
            )
        builder.add_unsigned_field(_ORDINAL, stored=False, indexed=False, fast=True)
        index = tantivy.Index(builder.build())
        for name, analyzer in analyzers.items():
            index.register_tokenizer(f"sr_{name}", analyzer.tantivy_analyzer())

        writer = index.writer(heap_size=_WRITER_HEAP_BYTES, num_threads=1)
        memo: dict[tuple[str, str], str] = {}
        field_texts: list[tuple[str, ...]] = []
        for ordinal, endpoint in enumerate(endpoints):
            doc = tantivy.Document()
            texts: list[str] = []
            for field in spec.fields:
                raw = source_text(endpoint, field.sources)
                key = (field.analyzer, raw)
                text = memo.get(key)
                if text is None:
                    text = memo[key] = analyzers[field.analyzer].index_text(raw)
                doc.add_text(field.id, text)
                texts.append(text)
            doc.add_unsigned(_ORDINAL, ordinal)
            writer.add_document(doc)
            field_texts.append(tuple(texts))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        searcher = index.searcher()
        _check_single_segment(searcher, len(endpoints))
        vocabularies = {
            f.id: frozenset(term for term, _ in searcher.terms_with_prefix(f.id, ""))
            if endpoints
            else frozenset()
            for f in spec.fields
        }
        return cls(
            spec=spec,
            route_ids=route_ids,
            index=index,
            analyzers=analyzers,
            vocabularies=vocabularies,
            build_seconds=time.perf_counter() - started,
            field_texts=tuple(field_texts),
        )

    def query(self, text: str) -> tantivy.Query | None:
        """The boolean query for ``text``, or None when no term of it occurs in the index.

        Clauses are ordered by analyzer (spec order), then term, then field (spec order), so the
        same text always gives the same query.
        """
        clauses = self.text_clauses(text)
        if not clauses:
            return None
        return tantivy.Query.boolean_query(clauses)

    def text_clauses(self, text: str) -> list[tuple[tantivy.Occur, tantivy.Query]]:
        """The SHOULD clauses of ``query(text)``: every field, each with its own analyzer and boost."""
        return self._clauses_of(self._query_terms(text))

    def top_and_matching(self, text: str, route_ids: Sequence[str]) -> tuple[Ranking, frozenset[str]]:
        """``search(text, len(route_ids))``, and those of ``route_ids`` (routes of this index) whose
        documents ``text`` matches at all: a term of the text in a field of the document that the query
        searches, so exactly the routes of ``route_ids`` a search at full depth returns, without
        ranking the whole catalog (tests/test_key_free_recorded.py holds it to that search)."""
        terms = self._query_terms(text)
        clauses = self._clauses_of(terms)
        query = tantivy.Query.boolean_query(clauses) if clauses else None
        return self.search_query(query, len(route_ids)), self._matching(terms, route_ids)

    def _query_terms(self, text: str) -> list[dict[str, int]]:
        """Per analyzer (``_postings`` order), the terms of ``text`` some field of it holds, with their
        counts in the text: what the query's clauses are made of."""
        prepared = prepare(text)
        words: dict[re.Pattern[str], list[str]] = {}
        out: list[dict[str, int]] = []
        for analyzer, holders in self._postings:
            found = words.get(analyzer.pattern)
            if found is None:
                found = words[analyzer.pattern] = analyzer.pattern.findall(prepared)
            counts = Counter(analyzer.terms_of_words(found))
            out.append({term: counts[term] for term in counts.keys() & holders.keys()})
        return out

    def _clauses_of(self, terms: list[dict[str, int]]) -> list[tuple[tantivy.Occur, tantivy.Query]]:
        """The clauses of ``_query_terms``' terms: per analyzer, by term, each field holding it."""
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for position, counts in enumerate(terms):
            cache = self._clauses[position]
            for term in sorted(counts):
                key = (term, counts[term])
                term_clauses = cache.get(key)
                if term_clauses is None:
                    term_clauses = self._term_clauses(position, *key)
                clauses.extend(term_clauses)
        return clauses

    def _matching(self, terms: list[dict[str, int]], route_ids: Sequence[str]) -> frozenset[str]:
        """Those of ``route_ids`` whose documents hold one of ``terms`` in a field a clause searches."""
        wanted: dict[int, set[str]] = {}  # field position -> the query terms searched in that field
        for (_, holders), counts in zip(self._postings, terms, strict=True):
            for term in counts:
                for field_id in holders[term]:
                    wanted.setdefault(self._field_position[field_id], set()).add(term)
        return frozenset(
            route_id
            for route_id in route_ids
            if route_id in self._ordinal  # a route of another catalog matches nothing here
            and any(not self._terms_of(route_id)[i].isdisjoint(ts) for i, ts in wanted.items())
        )

    def _terms_of(self, route_id: str) -> tuple[frozenset[str], ...]:
        """The terms a route's document holds in each spec field: its indexed text, split where
        Tantivy's whitespace tokenizer splits it (the analyzers' terms hold no whitespace)."""
        ordinal = self._ordinal[route_id]
        found = self._doc_terms.get(ordinal)
        if found is None:
            found = self._doc_terms[ordinal] = tuple(
                frozenset(text.split()) for text in self._field_texts[ordinal]
            )
        return found

    def field_terms(self, field_id: str, text: str) -> list[str]:
        """The terms of ``text`` under ``field_id``'s analyzer that occur in that field, in text order."""
        analyzer = self._analyzers[self._analyzer_of[field_id]]
        vocabulary = self._vocabularies[field_id]
        return [t for t in analyzer.terms(text) if t in vocabulary]

    def field_clause(self, field_id: str, term: str, weight: float) -> tuple[tantivy.Occur, tantivy.Query]:
        """One SHOULD clause: ``term`` in ``field_id``, boosted by field boost x ``weight``."""
        return (
            tantivy.Occur.Should,
            tantivy.Query.boost_query(
                tantivy.Query.term_query(self._schema, field_id, term, index_option="freq"),
                self._boosts[field_id] * weight,
            ),
        )

    def has_field(self, field_id: str) -> bool:
        return field_id in self._boosts

    def search_clauses(self, clauses: list[tuple[tantivy.Occur, tantivy.Query]], limit: int) -> Ranking:
        """Run the OR of ``clauses`` (none: no hits); ties by route ID as in ``search_query``."""
        return self.search_query(tantivy.Query.boolean_query(clauses) if clauses else None, limit)

    def analyzer(self, name: str) -> Analyzer:
        """The named analyzer of this index (as built from the spec)."""
        return self._analyzers[name]

    def search(self, text: str, limit: int) -> Ranking:
        """The top ``limit`` routes for ``text`` (fewer if fewer match; none for text without known terms)."""
        return self.search_query(self.query(text), limit)

    def search_query(self, query: tantivy.Query | None, limit: int) -> Ranking:
        """Run a prebuilt query; equal scores are ordered by route ID.

        Tantivy's top-docs collector orders ties by ascending document address, also at the cut-off,
        and document order is route ID order (one segment, added sorted), so its top ``limit`` is the
        top ``limit`` under (score descending, route ID ascending). The re-sort is a no-op guard;
        tests pin the behaviour at the cut-off.
        """
        limit = min(max(limit, 0), len(self.route_ids))
        if query is None or limit == 0:
            return Ranking((), ())
        hits = self._searcher.search(query, limit, count=False).hits
        # Sorted ascending as (-score, doc): score descending, then route ID; negation is exact, so the
        # scores come back bit for bit.
        top = sorted([(-score, address.doc) for score, address in hits])
        return Ranking(tuple(self.route_ids[doc] for _, doc in top), tuple(-negated for negated, _ in top))

    def raw_search(self, query: tantivy.Query, limit: int) -> list[tuple[float, int]]:
        """Tantivy alone, no tie handling: the baseline ``sr bench retrieval`` compares against."""
        return [
            (score, address.doc) for score, address in self._searcher.search(query, limit, count=False).hits
        ]

    def _term_clauses(
        self, position: int, term: str, count: int
    ) -> tuple[tuple[tantivy.Occur, tantivy.Query], ...]:
        """SHOULD clauses for one term of one analyzer: in each field holding it, the term boosted by
        field boost x occurrences in the text.

        Cached for small counts: the keys are then bounded by the index's vocabulary, so the cache
        cannot grow with the number of queries.
        """
        _, holders = self._postings[position]
        clauses = tuple(
            (
                tantivy.Occur.Should,
                tantivy.Query.boost_query(
                    tantivy.Query.term_query(self._schema, field_id, term, index_option="freq"),
                    self._boosts[field_id] * count,
                ),
            )
            for field_id in holders[term]
        )
        if count <= _CACHED_COUNTS:
            self._clauses[position][(term, count)] = clauses
        return clauses


def _check_single_segment(searcher: tantivy.Searcher, n: int) -> None:
    if n == 0:
        return
    if searcher.num_segments != 1 or searcher.num_docs != n:
        raise SchemaRouterError(
            f"retrieval index: expected 1 segment of {n} documents, got {searcher.num_segments} "
            f"segments of {searcher.num_docs}; rankings would not be deterministic"
        )
    hits = searcher.search(tantivy.Query.all_query(), n, count=False).hits
    addresses = [address for _, address in hits]
    ordinals = searcher.fast_field_values(_ORDINAL, addresses)
    if sorted(a.doc for a in addresses) != list(range(n)) or any(
        a.doc != o for a, o in zip(addresses, ordinals, strict=True)
    ):
        raise SchemaRouterError("retrieval index: document IDs do not follow route ID order")
