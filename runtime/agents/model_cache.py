"""A content-addressed cache of model calls (SQLite, WAL).

The key is the sha256 of the full request as canonical JSON (sorted keys, compact, UTF-8): model,
messages, tools and every sampling parameter. A rerun or a recovery run replays from it without
calling the server.

A request is serialized once per call (:func:`serialize_request`): the same canonical text gives the
cache key, the stored request text and the HTTP body. The exposed tools' texts, already rendered once
per catalog in exactly this canonical form, are spliced in rather than encoded again.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class SerializedRequest:
    """One request serialized once: its canonical text, and the key and body taken from that text."""

    text: str
    key: str

    @property
    def body(self) -> bytes:
        return self.text.encode("utf-8")


def serialize_request(request: dict[str, Any], tool_texts: Sequence[str] | None = None) -> SerializedRequest:
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


def request_key(request: dict[str, Any]) -> str:
    return serialize_request(request).key


class ModelCallCache:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS calls "
            "(key TEXT PRIMARY KEY, request TEXT NOT NULL, response TEXT NOT NULL)"
        )
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, request: dict[str, Any] | SerializedRequest) -> dict[str, Any] | None:
        key = _serialized(request).key
        with self._lock:
            row = self._db.execute("SELECT response FROM calls WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        try:
            response = json.loads(row[0])
        except json.JSONDecodeError:
            # A corrupt entry is an infrastructure problem, never an outcome: drop it and call again.
            with self._lock:
                self._db.execute("DELETE FROM calls WHERE key = ?", (key,))
            self.misses += 1
            return None
        self.hits += 1
        return response if isinstance(response, dict) else None

    def put(self, request: dict[str, Any] | SerializedRequest, response: dict[str, Any]) -> None:
        serialized = _serialized(request)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO calls (key, request, response) VALUES (?, ?, ?)",
                (serialized.key, serialized.text, json.dumps(response, sort_keys=True)),
            )

    def close(self) -> None:
        self._db.close()


def _serialized(request: dict[str, Any] | SerializedRequest) -> SerializedRequest:
    return request if isinstance(request, SerializedRequest) else serialize_request(request)
