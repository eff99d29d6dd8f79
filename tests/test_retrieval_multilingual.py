"""Queries in each of the six languages reach their routes through that language's analyzer."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest
from retrieval_support import frozen_spec, toy_index

from runtime.retrieval import RetrievalIndex

CATALOGS = Path(__file__).resolve().parents[1] / "catalogs" / "0.14"

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
    analyzer_of = {f.id: f.analyzer for f in index.spec.fields}
    cjk_terms = index._analyzers["cjk_ngram"].terms(query)
    assert cjk_terms and all(not t.isascii() for t in cjk_terms)
    for field in ("summary_en", "description_en", "summary_es", "summary_de"):
        terms = index._analyzers[analyzer_of[field]].terms(query)
        assert not set(terms) & index._vocabularies[field]


@lru_cache(maxsize=2)
def _surface_index(without_cjk_fields: bool) -> RetrievalIndex:
    from runtime.catalog.io import load_catalog

    spec = frozen_spec()
    if without_cjk_fields:
        fields = tuple(f for f in spec.fields if f.analyzer != "cjk_ngram")
        spec = spec.model_copy(update={"fields": fields})
    return RetrievalIndex.build(load_catalog(CATALOGS, 100), spec)


def _found(language: str, index: RetrievalIndex) -> tuple[int, int, int]:
    from runtime.surface import load_surface, required_routes

    found = required = covered = 0
    for task in load_surface(CATALOGS):
        if task.language != language:
            continue
        top = set(index.search(task.visible().query, 5).route_ids)
        need = required_routes(task)
        found += len(need & top)
        required += len(need)
        covered += need <= top
    return found, required, covered


@pytest.mark.skipif(not (CATALOGS / "surface.jsonl").exists(), reason="catalogs/ not generated yet")
@pytest.mark.parametrize("language", ["ko", "ja", "zh"])
def test_surface_cjk_queries_retrieve_their_own_tasks_routes(language: str) -> None:
    """On the real surface (catalog 100, where every required route is), CJK queries find their routes,
    and they do so through the CJK n-gram fields: without them almost nothing is found."""
    found, required, covered = _found(language, _surface_index(False))
    assert covered >= 3, f"{language}: only {covered} tasks have all their required routes in the top 5"
    assert found / required >= 0.5, f"{language}: only {found}/{required} required routes in the top 5"
    found_without, _, _ = _found(language, _surface_index(True))
    assert found_without * 4 <= found, f"{language}: {found_without} found without the CJK fields"
