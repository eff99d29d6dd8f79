"""Canonical content and sha256 digests of frozen files, and the root hash over them.

What is hashed (``FileDigest.canonical``):

* ``jcs-yaml``: a ``.yaml`` file is parsed (strictly, see yaml_loader) and its data serialized as
  RFC 8785 canonical JSON. Comments, key order, quoting and whitespace do not count; the data does.
  Anything that must be frozen therefore belongs in a field (``rationale:``), not in a comment.
* ``jcs-json``: a ``.json`` file, likewise parsed and serialized as RFC 8785 JSON.
* ``jcs-jsonl``: a ``.jsonl`` file is the JSON array of its non-blank lines' records, as RFC 8785 JSON.
* ``bytes-lf``: every other file (or a JSON file whose numbers RFC 8785 cannot represent): its raw
  bytes with CRLF and CR turned into LF.

The root hash is the sha256 of the RFC 8785 JSON of ``[[path, digest hex], ...]`` sorted by path.
These rules are pinned by tests/test_spec_freeze.py; changing them changes every freeze.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import rfc8785

from compiler.json_loader import parse_json_strict
from compiler.yaml_loader import load_yaml_text
from runtime.core.content_memo import ContentMemo
from runtime.core.jcs import dumps as jcs_dumps
from runtime.core.json_value import JSONObject, JSONValue
from runtime.core.safe_json import JsonTextError, decode_utf8
from runtime.spec_model import Digest, FileDigest

ITEM_ID_KEYS = ("route_id", "task_id", "id")
ITEM_DIGEST_LENGTH = 16


def jcs(data: JSONValue) -> bytes:
    """RFC 8785 canonical JSON of ``data``."""
    return jcs_dumps(data)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def normalized_bytes(raw: bytes) -> bytes:
    """Line endings normalized to LF."""
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


@dataclass(frozen=True)
class Fingerprint:
    """One frozen file's digest, its parsed data when it is data, and why it could not be parsed."""

    path: str
    digest: FileDigest
    data: JSONValue = None
    problem: str | None = None

    @property
    def is_data(self) -> bool:
        return self.digest.canonical != "bytes-lf"


def _parse(path: str, text: str) -> JSONValue:
    """Parse YAML, JSON or JSONL text strictly; raise ValueError with a message on failure."""
    if path.endswith(".yaml"):
        loaded = load_yaml_text(text, file=path)
        if loaded.issues:
            raise ValueError(str(loaded.issues[0]))
        data: JSONValue = loaded.data
        return data
    if path.endswith(".jsonl"):
        records: list[JSONValue] = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    records.append(parse_json_strict(line))
                except JsonTextError as err:
                    raise ValueError(f"{path}:{number}:{err.column}: not valid JSON: {err.message}") from None
        return records
    try:
        parsed: JSONValue = parse_json_strict(text)
    except JsonTextError as err:
        raise ValueError(f"{path}:{err.line}:{err.column}: not valid JSON: {err.message}") from None
    return parsed


def _kind(path: str) -> str:
    for suffix, kind in ((".yaml", "jcs-yaml"), (".jsonl", "jcs-jsonl"), (".json", "jcs-json")):
        if path.endswith(suffix):
            return kind
    return "bytes-lf"


# Fingerprints taken in this process, by logical path and the sha256 of the raw bytes: a fingerprint is
# a function of those two, so reading the same bytes again (verify after validate, every compile of a
# copied project) reuses it. Its ``data`` is shared: callers read it and never change it. Keyed by the
# digest, not the bytes, since it keeps hundreds of files (runtime/core/content_memo.py).
_TAKEN: ContentMemo[tuple[str, str], Fingerprint] = ContentMemo(maxsize=512)


def fingerprint(file: Path, path: str) -> Fingerprint:
    """The digest of ``file``, named by its logical path ``path`` (forward slashes)."""
    raw = file.read_bytes()
    return _TAKEN.get((path, sha256_hex(raw)), lambda: _fingerprint(raw, path))


def _fingerprint(raw: bytes, path: str) -> Fingerprint:
    bytes_digest = FileDigest(
        algorithm="sha256", digest=sha256_hex(normalized_bytes(raw)), canonical="bytes-lf"
    )
    kind = _kind(path)
    if kind == "bytes-lf":
        return Fingerprint(path, bytes_digest)
    try:
        data = _parse(path, decode_utf8(raw))
    except JsonTextError as err:
        return Fingerprint(path, bytes_digest, problem=f"{path}:{err.line}:{err.column}: {err.message}")
    except ValueError as err:
        return Fingerprint(path, bytes_digest, problem=str(err))
    try:
        canonical = jcs(data)
    except rfc8785.CanonicalizationError:
        return Fingerprint(path, bytes_digest, data=data)
    digest = FileDigest(algorithm="sha256", digest=sha256_hex(canonical), canonical=kind)  # type: ignore[arg-type]
    return Fingerprint(path, digest, data=data)


def root_digest(digests: dict[str, FileDigest]) -> Digest:
    """The root hash over the sorted (path, digest) list."""
    pairs: list[JSONValue] = [[path, digests[path].digest] for path in sorted(digests)]
    return Digest(algorithm="sha256", digest=sha256_hex(jcs(pairs)))


def item_digests(data: JSONValue) -> tuple[str, dict[str, str]] | None:
    """For a catalog-like file (a list of identified records, or an object holding one), the id key and
    a short digest per item; None when the file holds no such list."""
    candidates: list[list[JSONValue]] = [data] if isinstance(data, list) else []
    if isinstance(data, dict):
        candidates = [listed for key in sorted(data) if isinstance(listed := data[key], list)]
    for items in candidates:
        records = [item for item in items if isinstance(item, dict)]
        if not items or len(records) != len(items):
            continue
        for key in ITEM_ID_KEYS:
            ids = _unique_ids(records, key)
            if ids is None:
                continue
            try:
                return key, {
                    i: sha256_hex(jcs(item))[:ITEM_DIGEST_LENGTH]
                    for i, item in zip(ids, records, strict=True)
                }
            except rfc8785.CanonicalizationError:
                return None
    return None


# Item digests of fingerprinted files, by the canonical digest of their data (which fixes the data
# exactly): verify, the deviation report and the freeze each ask for the same catalogs' items.
_ITEMS: ContentMemo[str, tuple[tuple[str, dict[str, str]] | None]] = ContentMemo(maxsize=64)


def fingerprint_items(taken: Fingerprint) -> tuple[str, dict[str, str]] | None:
    """``item_digests`` of a fingerprinted file's data (None when it holds no data or no such list).

    The dict returned may be shared with other callers: read it, never change it."""
    if taken.data is None:
        return None
    if taken.digest.canonical == "bytes-lf":  # data that RFC 8785 cannot represent: never memoized
        return item_digests(taken.data)
    key = f"{taken.digest.canonical}:{taken.digest.digest}"
    return _ITEMS.get(key, lambda: (item_digests(taken.data),))[0]


def _unique_ids(records: list[JSONObject], key: str) -> list[str] | None:
    """Each record's ``key``, when every one is a string and no two are equal."""
    ids = [item.get(key) for item in records]
    named = [i for i in ids if isinstance(i, str)]
    return named if len(named) == len(ids) and len(set(named)) == len(named) else None
