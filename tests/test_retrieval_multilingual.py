"""Queries in each of the six languages reach their routes through that language's analyzer."""

from __future__ import annotations

import pytest
from retrieval_support import toy_index

CASES = [
    ("en", "How much would refunding my payment be? Just a quote.", "payments.refund.quote.v1"),
    ("es", "Convierte 30 dólares a euros", "fx.rate.convert.v1"),
    ("de", "Bitte die Temperatur von Celsius in Fahrenheit umrechnen", "units.temperature.convert.v1"),
    ("ko", "내 주문을 보관해 줘", "commerce.order.archive.v1"),
    ("ja", "期限切れのトークンを更新して", "auth.token.refresh.v1"),
    ("zh", "帮我在日历上创建一个事件", "calendar.event.create.v1"),
]


@pytest.mark.parametrize(("language", "query", "route_id"), CASES, ids=[c[0] for c in CASES])
def test_query_finds_its_route_first(language: str, query: str, route_id: str) -> None:
    assert toy_index().search(query, 5).route_ids[0] == route_id


@pytest.mark.parametrize(("language", "query", "route_id"), CASES[3:], ids=[c[0] for c in CASES[3:]])
def test_cjk_queries_match_only_through_cjk_fields(language: str, query: str, route_id: str) -> None:
    index = toy_index()
    cjk_terms = index._analyzers["cjk_ngram"].terms(query)
    assert cjk_terms and all(not t.isascii() for t in cjk_terms)
    for field in ("summary_en", "description_en", "summary_es", "summary_de"):
        analyzer = index._analyzers[
            index.spec.fields[[f.id for f in index.spec.fields].index(field)].analyzer
        ]
        assert not set(analyzer.terms(query)) & index._vocabularies[field]
