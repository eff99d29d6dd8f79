"""safe_json's string pattern: the fast (unrolled, possessive) form finds the same strings at the same
places as the textbook ``"(?:[^"\\]|\\.)*"``, on any text, so the depth limit reads every file as before."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.core import safe_json

TEXTBOOK = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
# Texts made of the characters that decide where a string or a bracket is, plus ordinary ones.
texts = st.text(alphabet='"\\[]{}a \n', max_size=200)


@settings(derandomize=True, max_examples=600, deadline=None)
@given(texts)
def test_the_string_pattern_tokenizes_like_the_textbook_one(text: str) -> None:
    textbook = [(m.start(), m.group()) for m in TEXTBOOK.finditer(text)]
    assert [(m.start(), m.group()) for m in safe_json._TOKENS.finditer(text)] == textbook


@settings(derandomize=True, max_examples=300, deadline=None)
@given(texts, st.integers(min_value=0, max_value=6))
def test_the_depth_check_agrees_with_a_token_scan(text: str, limit: int) -> None:
    depth = deepest = 0
    for m in TEXTBOOK.finditer(text):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif m.group() in "]}":
            depth -= 1
    assert (safe_json.depth_problem(text, limit) is not None) == (deepest > limit)
