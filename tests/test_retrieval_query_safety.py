"""No input string can fail a retrieval or change a query's shape: text is analyzed, never parsed."""

from __future__ import annotations

import pytest
import tantivy
from hypothesis import given, settings
from hypothesis import strategies as st
from retrieval_support import toy_index

from runtime.retrieval import StateAwareRetriever, StaticRetriever
from runtime.state import ObservableState

INJECTION = '{"a":"b"}: AND OR * ( "'
SYNTAX = [
    INJECTION,
    "",
    "   ",
    "*",
    "title:weather",
    "weather AND NOT forecast",
    '"unterminated',
    "(((",
    "a^10 b~2 c*",
    "[1 TO 5]",
    "\\",
    "\x00\x01\x02",
    "\ud800 lone surrogate",
    "😀" * 500,
    "ｗｅａｔｈｅｒ",
    "x" * 100_000,
]

texts = st.one_of(
    st.text(),
    st.lists(
        st.sampled_from([*'{}[]()":*^~\\+-!&|/ ', "AND", "OR", "NOT", "weather", "天気", "날씨", "title:"])
    ).map("".join),
    st.sampled_from(SYNTAX),
)


@settings(max_examples=300, deadline=None)
@given(text=texts, depth=st.integers(min_value=0, max_value=40))
def test_static_rank_never_raises(text: str, depth: int) -> None:
    call = StaticRetriever(toy_index()).rank(text, depth)
    assert call.text == text
    assert len(call.route_ids) <= depth
    assert len(call.route_ids) == len(set(call.route_ids)) == len(call.scores)
    assert list(call.scores) == sorted(call.scores, reverse=True)


@settings(max_examples=150, deadline=None)
@given(text=texts)
def test_state_aware_rank_never_raises(text: str) -> None:
    call = StateAwareRetriever(toy_index()).rank(text, ObservableState.initial(), 5)
    assert call.text.startswith(text)
    assert len(call.route_ids) <= 5


@settings(max_examples=200, deadline=None)
@given(text=texts)
def test_query_is_a_flat_or_of_known_terms(text: str) -> None:
    query = toy_index().query(text)
    assert query is None or isinstance(query, tantivy.Query)


def test_injection_string_matches_only_by_its_words() -> None:
    index = toy_index()
    assert index.search(INJECTION, 5).route_ids == index.search("a b and or", 5).route_ids


def test_query_syntax_is_not_interpreted() -> None:
    index = toy_index()
    # "NOT" and "-" would exclude in a query parser; here they are words, so the ranking is unchanged.
    plain = index.search("refund payment", 5).route_ids
    assert plain
    assert index.search("refund -payment", 5).route_ids == plain
    assert index.search("summary_en:refund", 5).route_ids[:2] == plain[:2]


def test_text_without_known_terms_gives_an_empty_ranking() -> None:
    for text in ("", "   ", "*", "zzqxj", "\x00"):
        call = StaticRetriever(toy_index()).rank(text, 5)
        assert call.route_ids == () and call.scores == ()


def test_negative_depth_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        StaticRetriever(toy_index()).rank("weather", -1)
