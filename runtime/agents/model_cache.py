"""A content-addressed cache of model calls (SQLite, WAL) that cannot cross servers or epochs.

A request is serialized once per call (:func:`serialize_request`): one canonical text (sorted keys,
compact, UTF-8) is the HTTP body and the stored request text. The cache key is the sha256 of the
server scope's canonical line, a newline, and that same text:

    {"base_url":"http://127.0.0.1:8080/v1","epoch":1,"model":"m"}\\n{"max_tokens":256,...}

so two servers serving the same model name, or two epochs of one run, never replay each other's
answers. The server's ``system_fingerprint``, when it returns one, is stored with the answer; once the
live server has shown a fingerprint in this process, an entry recorded under another fingerprint is a
miss (and is replaced). ``--no-cache`` opens no cache: nothing is read, nothing is written.

The exposed tools' texts, already rendered once per catalog in exactly this canonical form, are
spliced in rather than encoded again. ``sr cache stats`` and ``sr cache prune`` read and trim the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

from runtime.agents.chat_shapes import ChatRequest
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject


def _canonical(value: object) -> str:
    """The canonical text of anything ``json.dumps`` encodes (a JSON value, a chat request)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class SerializedRequest:
    """One request serialized once: its canonical text, and the key and body taken from that text."""

    text: str
    key: str

    @property
    def body(self) -> bytes:
        return self.text.encode("utf-8")


@dataclass(frozen=True)
class ServerScope:
    """What a cached answer belongs to besides the request: the server, the model and the epoch."""

    base_url: str
    model: str
    epoch: int = 1

    def line(self) -> str:
        return _canonical({"base_url": self.base_url.rstrip("/"), "epoch": self.epoch, "model": self.model})

    def key(self, request: SerializedRequest) -> str:
        return hashlib.sha256(f"{self.line()}\n{request.text}".encode()).hexdigest()


class CacheGroup(TypedDict):
    """The entries of one server, model and epoch (``sr cache stats``)."""

    base_url: str
    model: str
    epoch: int
    entries: int
    bytes: int
    fingerprints: int


class CacheStats(TypedDict):
    """What ``sr cache stats`` reports of a cache file."""

    path: str
    file_bytes: int  # the file and its write-ahead log (_bytes_on_disk)
    entries: int
    groups: list[CacheGroup]
    legacy_entries: int


def serialize_request(
    request: ChatRequest | JSONObject, tool_texts: Sequence[str] | None = None
) -> SerializedRequest:
    """The canonical text of ``request``.

    ``tool_texts``, when given, must be the canonical texts of ``request["tools"]`` in order (the
    prompt's ``tool_texts``); they are joined in instead of encoding the tools again. ``"tools"`` sorts
    after every other key of a chat-completions request, so it is the last member of the object.
    """
    if tool_texts is None or "tools" not in request or max(request) != "tools":
        text = _canonical(request)
    else:
        head = _canonical({k: v for k, v in request.items() if k != "tools"})
        tools = "[" + ",".join(tool_texts) + "]"
        text = f'{head[:-1]},"tools":{tools}}}' if len(head) > 2 else f'{{"tools":{tools}}}'
    return SerializedRequest(text=text, key=hashlib.sha256(text.encode("utf-8")).hexdigest())


def request_key(request: ChatRequest | JSONObject) -> str:
    return serialize_request(request).key


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS model_calls ("
    " key TEXT PRIMARY KEY, base_url TEXT NOT NULL, model TEXT NOT NULL, epoch INTEGER NOT NULL,"
    " request TEXT NOT NULL, response TEXT NOT NULL, system_fingerprint TEXT, created_at TEXT NOT NULL)"
)
# Written by earlier versions (keyed by the request alone, so it could cross servers): never read.
LEGACY_TABLE = "calls"


class ModelCallCache:
    def __init__(self, path: Path, *, create: bool = True):
        if not create and not path.is_file():
            raise SchemaRouterError(f"{path}: no model-call cache there")
        self.path = path
        self._dbh: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        if path.is_file():
            self._connect()  # an existing file that is not a usable cache is refused at once

    def _connect(self) -> sqlite3.Connection:
        if self._dbh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                db = sqlite3.connect(
                    str(self.path), check_same_thread=False, isolation_level=None, timeout=30
                )
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(_SCHEMA)
            except sqlite3.Error as err:
                raise SchemaRouterError(f"{self.path}: not a usable model-call cache ({err})") from None
            self._dbh = db
        return self._dbh

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection; the file is created on first use, so a run whose every call failed (or that
        made none) leaves no cache file behind."""
        return self._connect()

    def get(
        self, scope: ServerScope, request: SerializedRequest, *, live_fingerprint: str | None = None
    ) -> JSONObject | None:
        key = scope.key(request)
        if self._dbh is None and not self.path.is_file():
            self.misses += 1  # nothing cached yet: do not create the file for a lookup
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT response, system_fingerprint FROM model_calls WHERE key = ?", (key,)
            ).fetchone()
        if row is None or (live_fingerprint is not None and row[1] not in (None, live_fingerprint)):
            self.misses += 1
            return None
        try:
            response = json.loads(row[0])
        except json.JSONDecodeError:
            # A corrupt entry is an infrastructure problem, never an outcome: drop it and call again.
            with self._lock:
                self._db.execute("DELETE FROM model_calls WHERE key = ?", (key,))
            self.misses += 1
            return None
        if not isinstance(response, dict):
            self.misses += 1
            return None
        self.hits += 1
        return response

    def put(self, scope: ServerScope, request: SerializedRequest, response: JSONObject) -> None:
        fingerprint = response.get("system_fingerprint")
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO model_calls (key, base_url, model, epoch, request, response,"
                " system_fingerprint, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    scope.key(request),
                    scope.base_url.rstrip("/"),
                    scope.model,
                    scope.epoch,
                    request.text,
                    json.dumps(response, sort_keys=True),
                    fingerprint if isinstance(fingerprint, str) else None,
                    datetime.now(UTC).isoformat(),
                ),
            )

    def stats(self) -> CacheStats:
        """Entries per server, model and epoch, and what the legacy table still holds."""
        with self._lock:
            rows = self._db.execute(
                "SELECT base_url, model, epoch, COUNT(*), SUM(LENGTH(request) + LENGTH(response)),"
                " COUNT(DISTINCT system_fingerprint) FROM model_calls GROUP BY base_url, model, epoch"
                " ORDER BY base_url, model, epoch"
            ).fetchall()
            legacy = self._legacy_rows()
        return {
            "path": str(self.path),
            "file_bytes": _bytes_on_disk(self.path),
            "entries": sum(int(r[3]) for r in rows),
            "groups": [
                {
                    "base_url": r[0],
                    "model": r[1],
                    "epoch": int(r[2]),
                    "entries": int(r[3]),
                    "bytes": int(r[4] or 0),
                    "fingerprints": int(r[5]),
                }
                for r in rows
            ],
            "legacy_entries": legacy,
        }

    def prune(
        self, *, base_url: str | None = None, model: str | None = None, everything: bool = False
    ) -> int:
        """Delete the entries of one server and/or model (or all of them) and the legacy table; returns
        how many rows went. The file is vacuumed afterwards."""
        if not everything and base_url is None and model is None:
            raise SchemaRouterError("cache prune: give --base-url, --model or --all")
        where, params = [], []
        if base_url is not None:
            where.append("base_url = ?")
            params.append(base_url.rstrip("/"))
        if model is not None:
            where.append("model = ?")
            params.append(model)
        clause = "" if everything else " WHERE " + " AND ".join(where)
        with self._lock:
            removed = int(self._db.execute(f"DELETE FROM model_calls{clause}", params).rowcount)
            legacy = self._legacy_rows()
            if legacy:
                self._db.execute(f"DROP TABLE {LEGACY_TABLE}")
            self._db.execute("VACUUM")
        return removed + legacy

    def _legacy_rows(self) -> int:
        exists = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (LEGACY_TABLE,)
        ).fetchone()
        if not exists:
            return 0
        return int(self._db.execute(f"SELECT COUNT(*) FROM {LEGACY_TABLE}").fetchone()[0])

    def close(self) -> None:
        if self._dbh is not None:
            self._dbh.close()
            self._dbh = None


def _bytes_on_disk(path: Path) -> int:
    """The cache file and its write-ahead log: a run's worker processes exit without closing their
    connections, so their last writes stay in ``<file>-wal`` until the next connection folds them in;
    the file alone would then understate the cache (the WAL's index, ``-shm``, is not data)."""
    total = 0
    for part in (path, path.with_name(path.name + "-wal")):
        with contextlib.suppress(OSError):
            total += part.stat().st_size
    return total
