"""Canonical JSON per RFC 8785 (JCS): sorted keys, no whitespace, JCS number forms, UTF-8."""

from __future__ import annotations

from runtime.core.jcs import dumps
from runtime.core.json_value import JSONValue


def canonical_json(value: JSONValue) -> str:
    """The JCS text of a JSON-compatible value.

    Object keys are sorted by UTF-16 code units, numbers take the ECMAScript form (``1.0`` is ``1``,
    ``1e21`` is ``1e+21``), non-ASCII characters are written as themselves and control characters
    as ``\\u00XX``. Raises ``ValueError`` for NaN, infinities and integers beyond 2**53.
    """
    return dumps(value).decode("utf-8")
