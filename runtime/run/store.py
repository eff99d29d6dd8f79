"""``episodes.sqlite``: the crash-safe episode store of one run directory (SQLite, WAL mode).

* ``episodes``: one row per finished episode, keyed ``(task_id, condition, catalog, epoch)``, written in one
  transaction together with the resolution of that episode's earlier infrastructure events. A row is
  there completely or not at all; the primary key makes a duplicate impossible.
* ``events``: infrastructure events (an exception in the engine or the agent, a dead worker). They are
  never task results. An event is resolved when its episode is later committed.

``epoch`` is 1 unless the run repeats episodes (``sr run --epochs N``). A store created before epochs
existed has no ``epoch`` column: it is added (default 1) when the store is opened for writing, and read
as 1 when it is opened read-only; such a store's key stays ``(task_id, condition, catalog)``, which is
enough for its one-epoch run.

WAL with ``synchronous=NORMAL``: a committed transaction survives the death of the process (kill -9) at
any moment; only a power loss may drop the last few commits, which ``--resume`` then re-runs.
Outcome columns are read only through :meth:`EpisodeStore.read_outcomes`, which the scoring package
calls after it has established that the result set is terminal.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime.core import safe_json
from runtime.core.errors import SchemaRouterError
from runtime.run.manifest import now_utc
from runtime.run.scope import EpisodeKey
from runtime.run.trace_blob import unpack_trace

STORE_FILE = "episodes.sqlite"
STORE_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS episodes (
    task_id TEXT NOT NULL,
    condition TEXT NOT NULL,
    catalog INTEGER NOT NULL,
    metrics_json TEXT NOT NULL,
    wall_latency_ms REAL,
    trace_zlib BLOB NOT NULL,
    session INTEGER NOT NULL,
    committed_at TEXT NOT NULL,
    epoch INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (task_id, condition, catalog, epoch)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT,
    condition TEXT,
    catalog INTEGER,
    kind TEXT NOT NULL,
    error_type TEXT NOT NULL,
    message TEXT NOT NULL,
    traceback TEXT NOT NULL,
    session INTEGER NOT NULL,
    occurred_at TEXT NOT NULL,
    resolved_at TEXT,
    epoch INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS events_by_episode ON events (task_id, condition, catalog);
"""


def _key(task_id: Any, condition: Any, catalog: Any, epoch: Any = 1) -> EpisodeKey:
    if (
        not isinstance(task_id, str)
        or not isinstance(condition, str)
        or isinstance(catalog, bool)
        or not isinstance(epoch, int)
        or isinstance(epoch, bool)
    ):
        raise ValueError(f"({task_id!r}, {condition!r}, {catalog!r}, {epoch!r}) is not an episode key")
    return EpisodeKey(task_id, condition, int(catalog), epoch)


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    if not readonly:
        return sqlite3.connect(path, isolation_level=None, timeout=30)
    # mode=ro still reads the WAL, so a reader sees every commit of a live writer. In a directory the
    # reader may not write, SQLite cannot create the WAL index; when no WAL with data is left over, the
    # file is complete on its own and is opened as immutable.
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    try:
        conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        return conn
    except sqlite3.OperationalError:
        conn.close()
        wal = path.with_name(path.name + "-wal")
        if wal.is_file() and wal.stat().st_size > 0:
            raise
        return sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, isolation_level=None)


@dataclass(frozen=True)
class InfraEvent:
    """An infrastructure event as ``sr status`` shows it."""

    id: int
    key: EpisodeKey | None
    kind: str
    error_type: str
    message: str
    session: int
    occurred_at: str
    resolved_at: str | None


@dataclass(frozen=True)
class EpisodeOutcome:
    """A committed episode's deterministic metrics and its wall latency."""

    key: EpisodeKey
    metrics: dict[str, Any]
    wall_latency_ms: float | None
    trace_json: str | None = None


class EpisodeStore:
    """One connection to a run directory's store. Use as a context manager."""

    def __init__(self, run_dir: Path, *, create: bool = False, readonly: bool = False) -> None:
        path = run_dir / STORE_FILE
        self._path = path
        if not create and not path.is_file():
            raise SchemaRouterError(f"{run_dir}: no {STORE_FILE}; not a run directory")
        try:
            self._conn = _connect(path, readonly=readonly)
        except sqlite3.Error as err:
            raise self.refusal(err) from None
        try:
            if not readonly:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._conn.executescript(_SCHEMA)
                self._conn.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('store_version', ?)", (STORE_VERSION,)
                )
            # A store that fails SQLite's own check is never read: a damaged page could read as a
            # plausible but wrong set of committed episodes.
            problems = [row[0] for row in self._conn.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                self._conn.close()
                found = " ".join("; ".join(problems).split())[:300]
                raise SchemaRouterError(
                    f"{path}: the episode store fails SQLite's integrity check ({found}); "
                    "refusing to read it. Restore it from a copy, or start a new run."
                )
            version = self._conn.execute("SELECT value FROM meta WHERE key = 'store_version'").fetchone()
            self._epoch = self._epoch_column(readonly)
        except sqlite3.Error as err:
            self._conn.close()
            raise self.refusal(err) from None
        if version is None or version[0] != STORE_VERSION:
            self._conn.close()
            raise SchemaRouterError(f"{path}: store version {version!r}, this code reads {STORE_VERSION}")

    def _epoch_column(self, readonly: bool) -> str:
        """The SQL that reads an episode's epoch: the column, or 1 in a store made before epochs."""
        tables = {"episodes": False, "events": False}
        for table in tables:
            columns = {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}
            tables[table] = "epoch" in columns or not columns
        if all(tables.values()):
            return "epoch"
        if readonly:
            return "1"
        for table, present in tables.items():
            if not present:
                self._conn.execute(f"ALTER TABLE {table} ADD COLUMN epoch INTEGER NOT NULL DEFAULT 1")
        return "epoch"

    def refusal(self, err: sqlite3.Error) -> SchemaRouterError:
        """The one-line error for an SQLite failure on this store."""
        text = str(err)
        if "readonly" in text or "unable to open" in text:
            return SchemaRouterError(
                f"{self._path}: cannot open the episode store for writing ({text}); "
                "a read-only run directory can be inspected (sr status, sr score --out DIR), not run"
            )
        return SchemaRouterError(
            f"{self._path}: the episode store is unreadable or corrupt ({text}); refusing it"
        )

    def __enter__(self) -> EpisodeStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    # -- writing -----------------------------------------------------------------------------------

    def commit_episode(
        self,
        key: EpisodeKey,
        *,
        metrics: Mapping[str, float | int | bool | None],
        wall_latency_ms: float | None,
        trace_zlib: bytes,
        session: int,
    ) -> None:
        """Commit one finished episode atomically and resolve its open infrastructure events. The trace
        comes packed (``trace_blob.pack_trace``), as the worker that ran the episode sends it."""
        now = now_utc().isoformat()
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(
                "INSERT INTO episodes (task_id, condition, catalog, epoch, metrics_json, wall_latency_ms,"
                " trace_zlib, session, committed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key.task_id,
                    key.condition,
                    key.catalog,
                    key.epoch,
                    json.dumps(metrics, sort_keys=True, separators=(",", ":")),
                    wall_latency_ms,
                    trace_zlib,
                    session,
                    now,
                ),
            )
            conn.execute(
                "UPDATE events SET resolved_at = ? WHERE task_id = ? AND condition = ? AND catalog = ?"
                " AND epoch = ? AND resolved_at IS NULL",
                (now, key.task_id, key.condition, key.catalog, key.epoch),
            )
        except sqlite3.IntegrityError:
            conn.execute("ROLLBACK")
            raise SchemaRouterError(
                f"episode {key.label()} is already committed; refusing a duplicate"
            ) from None
        except sqlite3.Error as err:
            conn.execute("ROLLBACK")
            raise self.refusal(err) from None
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def record_event(
        self,
        key: EpisodeKey | None,
        *,
        kind: str,
        error_type: str,
        message: str,
        traceback: str,
        session: int,
    ) -> None:
        """Record an infrastructure event. It is evidence about the infrastructure, never an outcome."""
        self._conn.execute(
            "INSERT INTO events (task_id, condition, catalog, epoch, kind, error_type, message, traceback,"
            " session, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key.task_id if key else None,
                key.condition if key else None,
                key.catalog if key else None,
                key.epoch if key else 1,
                kind,
                error_type,
                message,
                traceback,
                session,
                now_utc().isoformat(),
            ),
        )

    def resolve_session_events(self) -> int:
        """Resolve events that belong to no episode (the engine failed to load): call once it loads."""
        cursor = self._conn.execute(
            "UPDATE events SET resolved_at = ? WHERE task_id IS NULL AND resolved_at IS NULL",
            (now_utc().isoformat(),),
        )
        return cursor.rowcount

    # -- reading progress (never outcomes) ----------------------------------------------------------

    def committed_keys(self) -> set[EpisodeKey]:
        try:
            rows = self._conn.execute(f"SELECT task_id, condition, catalog, {self._epoch} FROM episodes")
            return {_key(t, c, k, e) for t, c, k, e in rows.fetchall()}
        except (sqlite3.Error, TypeError, ValueError) as err:
            raise self.damaged("episodes", err) from None

    def session_counts(self, session: int) -> tuple[int, int]:
        """(episodes committed, infrastructure events recorded) by one session."""
        committed = self._conn.execute("SELECT COUNT(*) FROM episodes WHERE session = ?", (session,))
        events = self._conn.execute("SELECT COUNT(*) FROM events WHERE session = ?", (session,))
        return int(committed.fetchone()[0]), int(events.fetchone()[0])

    def events(self, *, unresolved_only: bool = False) -> list[InfraEvent]:
        where = " WHERE resolved_at IS NULL" if unresolved_only else ""
        try:
            rows = self._conn.execute(
                "SELECT id, task_id, condition, catalog, kind, error_type, message, session, occurred_at,"
                f" resolved_at, {self._epoch} FROM events{where} ORDER BY id"
            ).fetchall()
            return [
                InfraEvent(
                    id=int(row[0]),
                    key=_key(row[1], row[2], row[3], row[10]) if row[1] is not None else None,
                    kind=str(row[4]),
                    error_type=str(row[5]),
                    message=str(row[6]),
                    session=int(row[7]),
                    occurred_at=str(row[8]),
                    resolved_at=None if row[9] is None else str(row[9]),
                )
                for row in rows
            ]
        except (sqlite3.Error, TypeError, ValueError) as err:
            raise self.damaged("events", err) from None

    def damaged(self, table: str, err: Exception) -> SchemaRouterError:
        return SchemaRouterError(f"{self._path}: the {table} table holds a damaged row ({err}); refusing it")

    # -- reading outcomes (scoring only, after the terminality check) --------------------------------

    def read_outcomes(self, keys: Iterable[EpisodeKey], *, with_traces: bool = False) -> list[EpisodeOutcome]:
        """The metrics of the given committed episodes, in the order given (with each one's stored trace
        JSON when ``with_traces``, so scoring can recompute the metrics from it)."""
        trace = "trace_zlib" if with_traces else "NULL"
        try:
            rows = {
                _key(t, c, k, e): (m, lat, z)
                for t, c, k, e, m, lat, z in self._conn.execute(
                    f"SELECT task_id, condition, catalog, {self._epoch}, metrics_json, wall_latency_ms,"
                    f" {trace} FROM episodes"
                )
            }
        except (sqlite3.Error, TypeError, ValueError) as err:
            raise SchemaRouterError(
                f"{self._path}: cannot read the episodes ({err}); refusing to score"
            ) from None
        outcomes = []
        for key in keys:
            if key not in rows:
                raise SchemaRouterError(f"episode {key.label()} is not committed")
            metrics_json, latency, packed = rows[key]
            try:
                metrics = safe_json.loads(metrics_json)
                if not isinstance(metrics, dict):
                    raise ValueError("not a JSON object")
                if latency is not None and not isinstance(latency, int | float):
                    raise ValueError(f"wall latency {latency!r} is not a number")
                trace_json = unpack_trace(packed) if with_traces else None
            except (ValueError, TypeError, zlib.error) as err:
                raise SchemaRouterError(
                    f"{self._path}: episode {key.label()}: the stored row is damaged ({err}); "
                    "refusing to score"
                ) from None
            outcomes.append(
                EpisodeOutcome(key=key, metrics=metrics, wall_latency_ms=latency, trace_json=trace_json)
            )
        return outcomes

    def read_trace(self, key: EpisodeKey) -> str | None:
        """The stored trace JSON of one committed episode (for inspection and audits)."""
        try:
            row = self._conn.execute(
                "SELECT trace_zlib FROM episodes WHERE task_id = ? AND condition = ? AND catalog = ?"
                f" AND {self._epoch} = ?",
                tuple(key),
            ).fetchone()
            return unpack_trace(row[0]) if row else None
        except (sqlite3.Error, TypeError, ValueError, zlib.error) as err:
            raise self.damaged("episodes", err) from None
