"""``sr lock migrate``: rewrite a version-1 lock as version 2, keeping its root and every record.

A version-1 harness kept the protocol in its code; version 2 reads it from ``spec/protocol.yaml``.
Migrating annexes that file (and its schema) to the lock without changing the root: the root, the
file digests, the history and the scoring record stay as they were, and the migration is recorded with
the sha256 of the old lock. It is refused unless every file of the old lock still matches, the only
new files are the protocol's, and the specs validate (so the protocol agrees with the frozen specs).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from compiler.canonical import Fingerprint, root_digest
from compiler.deviations import PROTOCOL_FILES
from compiler.experiments import experiment_id_of
from compiler.frozen_files import is_snapshotted
from compiler.validate import validate_project
from compiler.verify import current_fingerprints
from runtime.core.errors import SchemaRouterError
from runtime.spec_model import FileDigest, FreezeLock
from runtime.spec_model.lock import (
    LOCK_VERSION,
    Annex,
    Migration,
    lock_guard,
    read_lock_data,
    write_lock,
)
from schemarouter.project import ProjectPaths


def migrate_lock(paths: ProjectPaths, *, reason: str, now: datetime | None = None) -> str:
    """Migrate the experiment's lock to the current version; the message says what was done."""
    display = paths.lock_display
    reason = reason.strip() or "lock format version 2: the protocol is read from spec/protocol.yaml"
    with lock_guard(paths):
        raw = paths.lock_file.read_bytes() if paths.lock_file.is_file() else None
        data = read_lock_data(paths.lock_file, display=display)
        if data is None or raw is None:
            raise SchemaRouterError(f"{display}: not found; nothing to migrate")
        if data.get("lock_version") == LOCK_VERSION:
            return f"{display}: already lock_version {LOCK_VERSION}"
        files = _version_1_files(display, data)
        current = current_fingerprints(paths)
        extra = _annexable_files(paths, files, current)
        validate_project(paths)
        at = now or datetime.now(UTC).replace(microsecond=0)
        lock = _migrated_lock(paths, data, raw, current, extra, reason=reason, at=at)
        write_lock(paths.lock_file, lock)
    names = ", ".join(paths.display(p) for p in extra) or "none"
    return f"{display}: migrated to lock_version {LOCK_VERSION}; root {lock.root} unchanged; annexed: {names}"


def _version_1_files(display: str, data: dict[str, Any]) -> dict[str, FileDigest]:
    """The file digests of a readable version-1 lock whose root is the root of its file list."""
    if data.get("lock_version") != 1:
        raise SchemaRouterError(f"{display}: lock_version {data.get('lock_version')!r} cannot be migrated")
    try:
        files = {p: FileDigest.model_validate(d) for p, d in data["files"].items()}
    except (KeyError, AttributeError, ValidationError) as err:
        raise SchemaRouterError(f"{display}: corrupt version-1 lock: {err}") from None
    if root_digest(files).digest != data["root"]["digest"]:
        raise SchemaRouterError(f"{display}: corrupt: its root is not the root of its file list")
    return files


def _annexable_files(
    paths: ProjectPaths, files: dict[str, FileDigest], current: dict[str, Fingerprint]
) -> list[str]:
    """The files a freeze would cover now beyond the old lock's: only the protocol's, with every old
    file unchanged."""
    drift = [p for p in sorted(files) if p not in current or current[p].digest != files[p]]
    if drift:
        raise SchemaRouterError(
            "\n".join([f"{paths.display(p)}: differs from the version-1 lock" for p in drift])
            + "\nnothing was migrated: restore the frozen files first"
        )
    extra = sorted(set(current) - set(files))
    if set(extra) - PROTOCOL_FILES:
        raise SchemaRouterError(
            "\n".join(
                f"{paths.display(p)}: not in the version-1 lock" for p in extra if p not in PROTOCOL_FILES
            )
            + "\nnothing was migrated: only the protocol file and its schema may be annexed"
        )
    return extra


def _migrated_lock(
    paths: ProjectPaths,
    data: dict[str, Any],
    raw: bytes,
    current: dict[str, Fingerprint],
    extra: list[str],
    *,
    reason: str,
    at: datetime,
) -> FreezeLock:
    """The version-2 lock: the old body, the annexed protocol files and the record of this migration."""
    display = paths.lock_display
    annexes = tuple(Annex(path=p, digest=current[p].digest, reason=reason, at=at) for p in extra)
    snapshots = dict(data.get("snapshots", {}))
    snapshots.update({p: current[p].data for p in extra if is_snapshotted(p) and current[p].is_data})
    migration = Migration(
        from_version=1, at=at, reason=reason, previous_lock_sha256=hashlib.sha256(raw).hexdigest()
    )
    body = {k: v for k, v in data.items() if k not in ("lock_version", "snapshots")}
    try:
        return FreezeLock.model_validate(
            {
                **body,
                "lock_version": LOCK_VERSION,
                "experiment_id": experiment_id_of(paths),
                "snapshots": snapshots,
                "annexes": [a.model_dump(mode="json") for a in annexes],
                "migrations": [migration.model_dump(mode="json")],
            }
        )
    except ValidationError as err:
        raise SchemaRouterError(f"{display}: cannot be migrated: {err}") from None
