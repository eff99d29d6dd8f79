"""A content-addressed cache of model calls (SQLite, WAL).

The key is the sha256 of the full request as canonical JSON: model, messages, tools and every
sampling parameter. A rerun or a recovery run replays from it without calling the server.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any


def request_key(request: dict[str, Any]) -> str:
    text = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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

    def get(self, request: dict[str, Any]) -> dict[str, Any] | None:
        key = request_key(request)
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

    def put(self, request: dict[str, Any], response: dict[str, Any]) -> None:
        key = request_key(request)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO calls (key, request, response) VALUES (?, ?, ?)",
                (
                    key,
                    json.dumps(request, sort_keys=True, ensure_ascii=False),
                    json.dumps(response, sort_keys=True),
                ),
            )

    def close(self) -> None:
        self._db.close()
