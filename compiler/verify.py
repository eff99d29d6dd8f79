"""Recompute the digests of the frozen files and compare them with the experiment's freeze.lock.

A drift names every file added, removed or changed; for a spec file it says what changed in its data
(from the lock's snapshot), for a catalog which identified items were added, removed or changed. The
lock is also checked against itself: its ``lock_digest`` must match its content (read_lock), its root
must be the root of its file list, and each snapshot must hash to its file's digest. And it is checked
against the lock committed at git HEAD (``lock_history``): a scoring record or a freeze that HEAD has
must still be there, so restoring an older lock or deleting ``scoring_started`` is named, not accepted.

The root covers the lock's ``files``; annexed files (a migrated version-1 lock) are checked one by one
against their own digests and do not enter the root.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.canonical import (
    Fingerprint,
    fingerprint,
    fingerprint_items,
    jcs,
    root_digest,
    sha256_hex,
)
from compiler.experiments import experiment_id_of
from compiler.frozen_files import frozen_paths
from compiler.lock_history import head_lock_problems
from compiler.semantic_diff import describe_changes
from runtime.core.errors import SchemaRouterError
from runtime.spec_model import Digest, FreezeLock, read_lock
from schemarouter.project import ProjectPaths

MAX_ITEM_LINES = 20


def current_fingerprints(paths: ProjectPaths) -> dict[str, Fingerprint]:
    """The digest of every file a freeze would cover now."""
    return {path: fingerprint(paths.physical(path), path) for path in frozen_paths(paths)}


@dataclass
class VerifyReport:
    """The outcome of comparing the project's files with its lock."""

    lock: FreezeLock
    current: dict[str, Fingerprint]
    root: Digest
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: dict[str, list[str]] = field(default_factory=dict)
    lock_problems: list[str] = field(default_factory=list)

    display: str = "spec/freeze.lock"

    @property
    def clean(self) -> bool:
        return not (self.added or self.removed or self.changed or self.lock_problems)

    def drift_lines(self) -> list[str]:
        """One line per finding, each starting with the file it concerns."""
        lines = [f"{self.display}: {problem}" for problem in self.lock_problems]
        lines += [f"{path}: removed (frozen, now missing)" for path in self.removed]
        lines += [f"{path}: added (not in the lock)" for path in self.added]
        for path, details in sorted(self.changed.items()):
            lines.append(f"{path}: changed")
            lines += [f"{path}: {detail}" for detail in details]
        return lines

    def message(self) -> str:
        """The full drift message verify prints (and compile refuses with)."""
        if self.clean:
            annexed = len(self.lock.annexes)
            extra = f" ({annexed} annexed file{'' if annexed == 1 else 's'} match too)" if annexed else ""
            scored = (
                f"; scoring started with run {self.lock.scoring_started.run_id}"
                if self.lock.scoring_started
                else ""
            )
            return (
                f"{self.display}: OK, experiment {self.lock.experiment_id}: "
                f"{len(self.current) - annexed} files match root {self.root}{extra}{scored}"
            )
        count = len(self.added) + len(self.removed) + len(self.changed)
        head = (
            f"{self.display}: drift: {count} file{'' if count == 1 else 's'} "
            f"differ{'s' if count == 1 else ''} from the freeze "
            f"(frozen root {self.lock.root}, current root {self.root})"
        )
        hint = (
            'If the change is intended and no scored run has started, re-freeze: sr freeze --reason "<why>"'
        )
        if self.lock.scoring_started is not None:
            hint = (
                f"Scoring started (run {self.lock.scoring_started.run_id}); the frozen files may not change. "
                "Restore them from the frozen commit."
            )
        return "\n".join([head, *self.drift_lines(), hint])


def verify_project(paths: ProjectPaths, *, current: dict[str, Fingerprint] | None = None) -> VerifyReport:
    """Compare the project's files (or the fingerprints ``current`` already taken of them) with
    spec/freeze.lock; raise SchemaRouterError if there is no lock."""
    display = paths.lock_display
    lock = read_lock(paths.lock_file, display=display)
    if lock is None:
        raise SchemaRouterError(
            f'{display}: not found; the specs are a draft. Freeze them with: sr freeze --reason "<why>"'
        )
    if current is None:
        current = current_fingerprints(paths)
    rooted = {p: f.digest for p, f in current.items() if p not in lock.annexed}
    report = VerifyReport(lock=lock, current=current, root=root_digest(rooted), display=display)
    stated = experiment_id_of(paths)
    report.lock_problems = [
        *(
            [f"experiment_id {lock.experiment_id!r} is not experiment.yaml's {stated!r}"]
            if lock.experiment_id != stated
            else []
        ),
        *lock_consistency_problems(lock),
        *catalog_item_problems(lock, current),
        *head_lock_problems(paths, lock),
    ]
    frozen = lock.all_files
    report.removed = sorted(set(frozen) - set(current))
    report.added = sorted(set(current) - set(frozen))
    for path in sorted(set(frozen) & set(current)):
        if current[path].digest != frozen[path]:
            report.changed[path] = explain_change(lock, current[path])
    return report


def lock_consistency_problems(lock: FreezeLock) -> list[str]:
    """Ways the lock disagrees with itself (a hand edit)."""
    problems = []
    if root_digest(lock.files) != lock.root:
        problems.append("corrupt: its root is not the root of its file list")
    if lock.annexed.keys() & lock.files.keys():
        problems.append("corrupt: a file is both in the root and annexed")
    latest = lock.history[-1] if lock.history else None
    if latest is None or latest.root != lock.root:
        problems.append("corrupt: the latest history entry is not the lock's root")
    elif (latest.frozen_at, latest.reason, latest.git, latest.files) != (
        lock.frozen_at,
        lock.reason,
        lock.git,
        len(lock.files),
    ):
        problems.append(
            "corrupt: frozen_at, reason, git or the file count differ from the latest history entry"
        )
    if lock.scoring_started is not None and lock.scoring_started.root != lock.root:
        problems.append("corrupt: scoring started under another root than the lock's")
    files = lock.all_files
    for path, data in sorted(lock.snapshots.items()):
        frozen = files.get(path)
        if frozen is None or frozen.canonical == "bytes-lf" or sha256_hex(jcs(data)) != frozen.digest:
            problems.append(f"corrupt: the snapshot of {path} does not match its digest")
    return problems


def catalog_item_problems(lock: FreezeLock, current: dict[str, Fingerprint]) -> list[str]:
    """The per-item digests of a catalog whose file still matches must be that file's items."""
    problems = []
    for path, frozen in sorted(lock.catalog_items.items()):
        now = current.get(path)
        if now is None or now.digest != lock.files.get(path) or now.data is None:
            continue
        found = fingerprint_items(now)
        if found is None or found[0] != frozen.key or found[1] != frozen.items:
            problems.append(f"corrupt: catalog_items of {path} do not match the frozen file")
    return problems


def explain_change(lock: FreezeLock, now: Fingerprint) -> list[str]:
    """What changed in one file, as far as the lock lets us say."""
    if now.problem:
        return [f"cannot be parsed now: {now.problem}"]
    path = now.path
    if path in lock.snapshots and now.is_data:
        prefix = path.rsplit("/", 1)[-1].removesuffix(".yaml").removesuffix(".json")
        lines = describe_changes(lock.snapshots[path], now.data, prefix)
        return lines or ["content changed (same data, different canonical form)"]
    frozen_items = lock.catalog_items.get(path)
    found = fingerprint_items(now)
    if frozen_items is None or found is None or found[0] != frozen_items.key:
        return []
    key, items = found
    lines = []
    for item_id in sorted(set(frozen_items.items) - set(items)):
        lines.append(f'{key} "{item_id}" removed')
    for item_id in sorted(set(items) - set(frozen_items.items)):
        lines.append(f'{key} "{item_id}" added')
    for item_id in sorted(set(items) & set(frozen_items.items)):
        if items[item_id] != frozen_items.items[item_id]:
            lines.append(f'{key} "{item_id}" changed')
    if len(lines) > MAX_ITEM_LINES:
        lines = [*lines[:MAX_ITEM_LINES], f"... and {len(lines) - MAX_ITEM_LINES} more items"]
    return lines or ["content outside the identified items changed"]


def require_verified(paths: ProjectPaths) -> VerifyReport:
    """verify_project, raising SchemaRouterError with the drift message when anything drifted."""
    report = verify_project(paths)
    if not report.clean:
        raise SchemaRouterError(report.message())
    return report
