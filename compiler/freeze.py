"""Write an experiment's freeze.lock: the digests of every frozen file, the root hash, the history.

Order: fingerprint every frozen file -> compare with the previous lock (same root: nothing to do;
scoring started: refuse) -> validate the specs (an invalid spec is never frozen) -> check the declared
deviations of a successor (every difference from the parent needs a rationale) -> refuse files that do
not parse (a broken catalog is never frozen) -> write.

Re-freezing is allowed until the first scored run (``record_scoring_started``). After it, a freeze that
would change any frozen file is refused: the seed freezes everything before any episode is scored, no
state field may be added after scoring starts, and rules may not be tuned on what the scores show. A
freeze of unchanged files is a no-op, before or after.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from compiler.canonical import Fingerprint, fingerprint_items, root_digest
from compiler.confirmations import confirmations
from compiler.deviations import require_declared_deviations
from compiler.experiments import experiment_id_of
from compiler.frozen_files import is_snapshotted
from compiler.git_info import git_state, uncommitted_paths
from compiler.pilots import read_pilots
from compiler.run_records import record_lines, record_problems
from compiler.validate import validate_project
from compiler.verify import current_fingerprints, verify_project
from runtime.core.errors import SchemaRouterError
from runtime.spec_model import FreezeLock
from runtime.spec_model.lock import (
    LOCK_VERSION,
    ROOT_RULE,
    CatalogItems,
    FreezeRecord,
    lock_guard,
    read_lock,
    write_lock,
)
from runtime.spec_model.preflight_record import PreflightRecord
from schemarouter import __version__
from schemarouter.project import ProjectPaths

STATE_CONTRACT_FILE = "state_contract.yaml"


@dataclass(frozen=True)
class FreezeResult:
    """What a freeze did."""

    lock: FreezeLock
    written: bool
    previous_root: str | None
    display: str = "spec/freeze.lock"
    changes: list[str] = field(default_factory=list)
    uncommitted: list[str] = field(default_factory=list)
    records: list[str] = field(default_factory=list)  # every pilot and confirmation (run_records.py)

    def message(self) -> str:
        if not self.written:
            count = len(self.lock.files)
            unchanged = f"{self.display}: unchanged; {count} files already frozen at {self.lock.root}"
            return "\n".join([unchanged, *self.records])
        lines = [
            f"{self.display}: froze {len(self.lock.files)} files at {self.lock.root} "
            f"(reason: {self.lock.reason})"
        ]
        if self.previous_root:
            lines.append(f"previous root {self.previous_root}; changes since:")
            lines += [f"  {line}" for line in self.changes]
        if self.uncommitted:
            lines.append(f"frozen files not yet committed (commit them together with {self.display}):")
            lines += [f"  {path}" for path in self.uncommitted]
        return "\n".join([*lines, *self.records])


def freeze_project(
    paths: ProjectPaths,
    *,
    reason: str,
    now: datetime | None = None,
    preflight: PreflightRecord | None = None,
) -> FreezeResult:
    """Validate, fingerprint and freeze the experiment's specs and catalogs into its freeze.lock.

    ``preflight``: the table of the preflight the caller ran (``sr freeze`` runs ``sr preflight``
    first, in the application layer: the compiler never runs episodes); kept in the lock as is."""
    reason = reason.strip()
    if not reason:
        raise SchemaRouterError('sr freeze needs a reason: sr freeze --reason "<why>"')
    display = paths.lock_display
    with lock_guard(paths):
        previous = read_lock(paths.lock_file, display=display)
        fingerprints = current_fingerprints(paths)
        changes: list[str] = []
        if previous is not None:
            drift = _changes_since(paths, previous, fingerprints)
            if drift is None:  # nothing changed: the lock stays as it is
                return FreezeResult(
                    lock=previous,
                    written=False,
                    previous_root=str(previous.root),
                    display=display,
                    records=_records(paths, shown_empty=False),
                )
            changes = drift
        _require_freezable(paths, fingerprints)
        lock = _build_lock(
            paths,
            fingerprints,
            reason=reason,
            now=now or datetime.now(UTC).replace(microsecond=0),
            previous=previous,
            preflight=preflight,
        )
        write_lock(paths.lock_file, lock)
        return FreezeResult(
            lock=read_lock(paths.lock_file, display=display) or lock,
            written=True,
            previous_root=str(previous.root) if previous else None,
            changes=changes,
            uncommitted=_uncommitted(paths, lock),
            display=display,
            records=_records(paths, shown_empty=True),
        )


def _changes_since(
    paths: ProjectPaths, previous: FreezeLock, fingerprints: dict[str, Fingerprint]
) -> list[str] | None:
    """The drift lines since the previous freeze (None: nothing changed); refused when the lock itself is
    inconsistent or scoring has started."""
    report = verify_project(paths, current=fingerprints)
    if report.clean:
        return None
    changes = report.drift_lines()
    if report.lock_problems:
        raise SchemaRouterError(
            "\n".join([*report.drift_lines()[: len(report.lock_problems)], "nothing was frozen."])
        )
    if previous.scoring_started is not None:
        raise SchemaRouterError(_refusal(previous, changes, paths.lock_display))
    return changes


def _require_freezable(paths: ProjectPaths, fingerprints: dict[str, Fingerprint]) -> None:
    """The run records' chains hold, the specs validate, every deviation is declared, every file parses."""
    broken = record_problems(paths)
    if broken:
        raise SchemaRouterError("\n".join([*broken, "nothing was frozen."]))
    validated = validate_project(paths)
    require_declared_deviations(paths, validated, fingerprints)
    problems = [f.problem for f in fingerprints.values() if f.problem]
    if problems:
        raise SchemaRouterError("\n".join([*problems, "nothing was frozen."]))


def _uncommitted(paths: ProjectPaths, lock: FreezeLock) -> list[str]:
    """The frozen files git has not committed yet (to be committed with the lock)."""
    frozen = {paths.display(p) for p in lock.files}
    dirs = [d.relative_to(paths.root).as_posix() for d in (paths.spec_dir, paths.catalogs_dir)]
    return [p for p in uncommitted_paths(paths.root, *dirs) if p in frozen]


def _records(paths: ProjectPaths, *, shown_empty: bool) -> list[str]:
    """Every pilot and confirmation of the draft being frozen (nothing for an experiment without any
    when the lock is unchanged, so an unchanged freeze of 0.14 prints what it always printed)."""
    if not shown_empty and not (read_pilots(paths) or confirmations(paths)):
        return []
    return record_lines(paths)


def _refusal(previous: FreezeLock, changes: list[str], display: str) -> str:
    started = previous.scoring_started
    assert started is not None
    contract = [line for line in changes if STATE_CONTRACT_FILE in line.split(":", 1)[0]]
    lines = [
        f"{display}: refusing to re-freeze: scoring started with run {started.run_id} at "
        f"{started.at.isoformat()} under root {started.root}.",
        "The seed freezes the specs before any episode is scored; no state field may be added and no "
        "rule tuned after scoring starts.",
    ]
    if contract:
        lines.append("The state contract changed:")
        lines += [f"  {line}" for line in contract]
    other = [line for line in changes if line not in contract]
    if other:
        lines.append("Other frozen files changed:")
        lines += [f"  {line}" for line in other]
    lines.append(
        "Restore the frozen files; a changed experiment is a new experiment with its own freeze: "
        'sr experiment new NEW_ID --from THIS_ID --reason "<why>"'
    )
    return "\n".join(lines)


def _build_lock(
    paths: ProjectPaths,
    fingerprints: dict[str, Fingerprint],
    *,
    reason: str,
    now: datetime,
    previous: FreezeLock | None,
    preflight: PreflightRecord | None = None,
) -> FreezeLock:
    files = {path: f.digest for path, f in fingerprints.items()}
    root = root_digest(files)
    git = git_state(paths.root)
    catalog_items = {}
    for path, f in fingerprints.items():
        if path.startswith("catalogs/") and f.data is not None:
            found = fingerprint_items(f)
            if found is not None:
                catalog_items[path] = CatalogItems(key=found[0], items=found[1])
    record = FreezeRecord(root=root, frozen_at=now, reason=reason, git=git, files=len(files))
    return FreezeLock(
        lock_version=LOCK_VERSION,
        experiment_id=experiment_id_of(paths),
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
        annexes=(),
        migrations=previous.migrations if previous else (),
        code=previous.code if previous else None,  # append-only: sr freeze pins a new record after it
        preflight=preflight,
    )
