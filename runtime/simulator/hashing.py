"""Stable identifiers and derived values: sha256 of canonical JSON, never Python's hash().

Numbers are canonicalized before hashing (an integral float such as ``250.0`` hashes like ``250``), so
a model that writes ``250.0`` for ``250`` gets the same identifier.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal

from runtime.core.json_value import JSONValue


def canonical_value(value: JSONValue) -> JSONValue:
    """The value with integral floats made ints (recursively), for hashing and storing."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {str(k): canonical_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonical_value(v) for v in value]
    return value


def digest_json(value: JSONValue) -> str:
    """The simulator's own serialization for digests (sorted keys, compact). Not RFC 8785 (that is
    ``runtime.core.jcs.dumps``, for the state text): every identifier the simulator mints
    hashes this text, so changing it would change every frozen surface's identifiers."""
    return json.dumps(canonical_value(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def digest(*parts: JSONValue) -> str:
    """Hex sha256 over the canonical JSON of the parts, joined by newlines."""
    text = "\n".join(digest_json(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stable_identifier(prefix: str, *parts: JSONValue) -> str:
    """``<prefix>_<16 hex>``: matches the state contract's identifier pattern for any sane prefix."""
    return f"{prefix}_{digest(*parts)[:16]}"


def digest_int(*parts: JSONValue) -> int:
    """A 64-bit integer drawn from the digest of the parts."""
    return int(digest(*parts)[:16], 16)


def decimal_of(value: JSONValue) -> Decimal:
    """Exact decimal of a JSON number (via its shortest repr, so 0.1 stays 0.1)."""
    if isinstance(value, bool):
        raise TypeError("boolean is not a number")
    return Decimal(str(value))
