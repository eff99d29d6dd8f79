"""Write spec/freeze.lock: the digests of every frozen file, the root hash, the history of freezes.

Order: fingerprint every frozen file -> compare with the previous lock (same root: nothing to do;
scoring started: refuse) -> validate the specs (an invalid spec is never frozen) -> refuse files that do
not parse (a broken catalog is never frozen) -> write.

Re-freezing is allowed until the first scored run (``record_scoring_started``). After it, a freeze that
would change any frozen file is refused: the seed freezes everything before any episode is scored, no
state field may be added after scoring starts, and rules may not be tuned on what the scores show. A
freeze of unchanged files is a no-op, before or after.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from schemarouter import __version__
from schemarouter.compiler.canonical import Fingerprint, item_digests, root_digest
from schemarouter.compiler.frozen_files import is_snapshotted
from schemarouter.compiler.git_info import git_state, uncommitted_paths
from schemarouter.compiler.validate import validate_project
from schemarouter.compiler.verify import current_fingerprints, verify_project
from schemarouter.errors import SchemaRouterError
from schemarouter.project import ProjectPaths
from schemarouter.runtime.spec_model import FreezeLock
from schemarouter.runtime.spec_model.lock import (
    LOCK_VERSION,
    ROOT_RULE,
    CatalogItems,
    FreezeRecord,
    lock_guard,
    read_lock,
    write_lock,
)

STATE_CONTRACT_FILE = "spec/state_contract.yaml"


@dataclass(frozen=True)
class FreezeResult:
    """What a freeze did."""

    lock: FreezeLock
    written: bool
    previous_root: str | None
    changes: list[str] = field(default_factory=list)
    uncommitted: list[str] = field(default_factory=list)

    def message(self) -> str:
        if not self.written:
            count = len(self.lock.files)
            return f"spec/freeze.lock: unchanged; {count} files already frozen at {self.lock.root}"
        lines = [
            f"spec/freeze.lock: froze {len(self.lock.files)} files at {self.lock.root} "
            f"(reason: {self.lock.reason})"
        ]
        if self.previous_root:
            lines.append(f"previous root {self.previous_root}; changes since:")
            lines += [f"  {line}" for line in self.changes]
        if self.uncommitted:
            lines.append("frozen files not yet committed (commit them together with spec/freeze.lock):")
            lines += [f"  {path}" for path in self.uncommitted]
        return "\n".join(lines)


def freeze_project(paths: ProjectPaths, *, reason: str, now: datetime | None = None) -> FreezeResult:
    """Validate, fingerprint and freeze the project's specs and catalogs into spec/freeze.lock."""
    reason = reason.strip()
    if not reason:
        raise SchemaRouterError('sr freeze needs a reason: sr freeze --reason "<why>"')
    with lock_guard(paths):
        previous = read_lock(paths.lock_file)
        fingerprints = current_fingerprints(paths)
        root = root_digest({path: f.digest for path, f in fingerprints.items()})
        if previous is not None and previous.root == root:
            return FreezeResult(lock=previous, written=False, previous_root=str(previous.root))
        changes = verify_project(paths, current=fingerprints).drift_lines() if previous is not None else []
        if previous is not None and previous.scoring_started is not None:
            raise SchemaRouterError(_refusal(previous, changes))
        validate_project(paths)
        problems = [f.problem for f in fingerprints.values() if f.problem]
        if problems:
            raise SchemaRouterError("\n".join([*problems, "nothing was frozen."]))
        lock = _build_lock(
            paths,
            fingerprints,
            reason=reason,
            now=now or datetime.now(UTC).replace(microsecond=0),
            previous=previous,
        )
        write_lock(paths.lock_file, lock)
        pending = [p for p in uncommitted_paths(paths.root, "spec", "catalogs") if p in lock.files]
        return FreezeResult(
            lock=lock,
            written=True,
            previous_root=str(previous.root) if previous else None,
            changes=changes,
            uncommitted=pending,
        )


def _refusal(previous: FreezeLock, changes: list[str]) -> str:
    started = previous.scoring_started
    assert started is not None
    contract = [line for line in changes if line.startswith(STATE_CONTRACT_FILE)]
    lines = [
        f"spec/freeze.lock: refusing to re-freeze: scoring started with run {started.run_id} at "
        f"{started.at.isoformat()} under root {started.root}.",
        "The seed freezes the specs before any episode is scored; no state field may be added and no "
        "rule tuned after scoring starts.",
    ]
    if contract:
        lines.append("The state contract changed:")
        lines += [f"  {line}" for line in contract]
    other = [line for line in changes if not line.startswith(STATE_CONTRACT_FILE)]
    if other:
        lines.append("Other frozen files changed:")
        lines += [f"  {line}" for line in other]
    lines.append("Restore the frozen files; a changed experiment is a new experiment with its own freeze.")
    return "\n".join(lines)


def _build_lock(
    paths: ProjectPaths,
    fingerprints: dict[str, Fingerprint],
    *,
    reason: str,
    now: datetime,
    previous: FreezeLock | None,
) -> FreezeLock:
    files = {path: f.digest for path, f in fingerprints.items()}
    root = root_digest(files)
    git = git_state(paths.root)
    catalog_items = {}
    for path, f in fingerprints.items():
        if path.startswith("catalogs/") and f.data is not None:
            found = item_digests(f.data)
            if found is not None:
                catalog_items[path] = CatalogItems(key=found[0], items=found[1])
    record = FreezeRecord(root=root, frozen_at=now, reason=reason, git=git, files=len(files))
    return FreezeLock(
        lock_version=LOCK_VERSION,
        root=root,
        root_rule=ROOT_RULE,
        frozen_at=now,
        reason=reason,
        git=git,
        compiler_version=__version__,
        files=files,
        snapshots={p: f.data for p, f in fingerprints.items() if is_snapshotted(p) and f.is_data},
        catalog_items=catalog_items,
        history=(*(previous.history if previous else ()), record),
        scoring_started=None,
    )
