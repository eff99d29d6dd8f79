"""RFC 8785 (JCS) canonical JSON bytes, computed by the C JSON encoder where that gives the same bytes.

``rfc8785.dumps`` is the reference; it is pure Python and costs about 5 µs a value, which made
digesting the catalogs most of ``sr compile``. For plain data ``json.dumps(sort_keys=True,
separators=(",", ":"), ensure_ascii=False)`` writes exactly the same text, because both escape only
``"``, ``\\`` and the C0 controls, in the same forms. The two differ only in three places, and data
that reaches any of them goes to ``rfc8785`` instead:

* floats whose ``repr`` has an exponent (JCS writes ECMAScript number forms: ``1e21`` is ``1e+21``;
  ``0.25`` is ``0.25`` in both), and NaN and infinities. An integral float below 2**53 (``1.0``,
  which JCS writes ``1``) is encoded as the integer it equals, which prints the same digits;
* integers beyond 2**53 - 1 in magnitude (JCS refuses them);
* object keys with characters at or above U+D800 (JCS sorts keys by UTF-16 code units, Python by
  code points; they agree below the surrogate range), and keys that are not strings.

Lone surrogates cannot be encoded as UTF-8; ``rfc8785`` then raises its CanonicalizationError.
tests/test_jcs.py compares both on the frozen files and on the edge cases above.
"""

from __future__ import annotations

import json
from typing import Any

import rfc8785

_INT_LIMIT = 2**53 - 1
_SURROGATE_START = "\ud800"
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False)


_AGREES, _AGREES_WITH_INTS, _DIFFERS = 0, 1, 2


def dumps(value: Any) -> bytes:
    """The RFC 8785 canonical JSON of ``value``; raises ``rfc8785.CanonicalizationError`` as rfc8785 does."""
    verdict = _encoder_agrees(value)
    if verdict != _DIFFERS:
        try:
            plain = value if verdict == _AGREES else _integral_floats_as_ints(value)
            return _ENCODER.encode(plain).encode("utf-8")
        except UnicodeEncodeError:
            pass  # a lone surrogate: rfc8785 names it
    return rfc8785.dumps(value)


def _integral_floats_as_ints(value: Any) -> Any:
    kind = type(value)
    if kind is float:
        return int(value) if value.is_integer() else value
    if kind is dict:
        return {key: _integral_floats_as_ints(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_integral_floats_as_ints(item) for item in value]
    return value


def _encoder_agrees(value: Any) -> int:
    """_AGREES when ``value`` holds only what json.dumps writes exactly as RFC 8785 does,
    _AGREES_WITH_INTS when that is so once its integral floats are integers, else _DIFFERS."""
    verdict = _AGREES
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if -_INT_LIMIT <= item <= _INT_LIMIT:
                continue
            return _DIFFERS
        if kind is dict:
            for key in item:
                if type(key) is not str or (not key.isascii() and max(key) >= _SURROGATE_START):
                    return _DIFFERS
            push(item.values())
            continue
        if kind is list or kind is tuple:
            push(item)
            continue
        if kind is float:
            text = repr(item)
            if "e" in text or "n" in text:  # exponent forms, inf, nan
                return _DIFFERS
            if text.endswith(".0"):  # integral: below 2**53 its digits are those of the integer
                if not -_INT_LIMIT <= item <= _INT_LIMIT:
                    return _DIFFERS
                verdict = _AGREES_WITH_INTS
            continue
        return _DIFFERS  # any other type
    return verdict
