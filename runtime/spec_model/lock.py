"""``spec/<id>/freeze.lock``: the frozen hashes of an experiment's specs and catalogs, and when scoring
started.

The compiler writes freezes; the run area records, through ``record_scoring_started``, that the first
scored run began, after which no freeze may change any frozen file. The lock is JSON (sorted keys,
2-space indent): no YAML ambiguity, stable diffs, and the same canonical form the hashes use.
Files are named by their logical path inside the experiment (``spec/<rest>``, ``catalogs/<rest>``), so
the root does not depend on where the experiment sits in the project.

Version 2 adds what makes the record checkable: the experiment's id, a ``lock_digest`` over the lock's
own content (a hand edit of ``scoring_started``, ``history``, ``git``, ... no longer verifies), and
``annexes``: files frozen after the root without changing it. An annex comes only from migrating a
version-1 lock (``sr lock migrate``), for the protocol file that states the facts a version-1 harness
kept in its code; ``sr freeze`` never writes one. Changing a field's meaning means bumping
``LOCK_VERSION``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from pydantic import AwareDatetime, Field, ValidationError

from runtime.core import safe_json
from runtime.core.atomic_write import write_text_atomic
from runtime.core.content_memo import ContentMemo
from runtime.core.errors import SchemaRouterError
from runtime.core.frozen_model import FrozenModel
from runtime.core.jcs import dumps as jcs_dumps
from runtime.core.json_value import JSONObject
from runtime.spec_model.code_record import CodeRecord
from runtime.spec_model.digest import Digest, FileDigest, GitState
from runtime.spec_model.preflight_record import PreflightRecord

if TYPE_CHECKING:
    from runtime.spec_model.compiled import CompiledSpec

LOCK_VERSION: Final = 2
ROOT_RULE = (
    "sha256 of the RFC 8785 JSON of [[path, file digest hex], ...] over every frozen file, sorted by path"
)
DIGEST_RULE = "sha256 of the RFC 8785 JSON of the whole lock without its lock_digest key"
# Records added to version 2 without a version bump: left out of the file while absent
# (``FreezeLock.data``), so a lock written before they existed keeps its bytes and lock_digest.
OPTIONAL_KEYS: Final = ("code", "preflight")


class FreezeRecord(FrozenModel):
    """One freeze, as kept in the history."""

    root: Digest = Field(description="Root hash of that freeze.")
    frozen_at: AwareDatetime = Field(description="When (UTC).")
    reason: str = Field(description="Why it was frozen (sr freeze --reason).")
    git: GitState = Field(description="Git state when it was frozen.")
    files: int = Field(description="How many files it covered.")


class ScoringStarted(FrozenModel):
    """The first scored run. Once set, no freeze may change a frozen file."""

    run_id: str = Field(description="Id of the first scored run.")
    at: AwareDatetime = Field(description="When it was recorded (UTC).")
    root: Digest = Field(description="The freeze root the run executed under.")


class CatalogItems(FrozenModel):
    """Per-item digests of a catalog file, so verify can name the items that changed."""

    key: str = Field(description="The item id key, e.g. route_id or task_id.")
    items: dict[str, str] = Field(
        description="Item id -> first 16 hex of the sha256 of the item's RFC 8785 JSON. A diff aid only: "
        "integrity rests on the file digest."
    )


class Annex(FrozenModel):
    """A file frozen after the root without changing it (only from migrating a version-1 lock)."""

    path: str = Field(description="Logical path of the file.")
    digest: FileDigest = Field(description="Its digest, by the same rules as files.")
    reason: str = Field(description="Why it was annexed.")
    at: AwareDatetime = Field(description="When (UTC).")


class Migration(FrozenModel):
    """A change of the lock's format that left every frozen file and the root as they were."""

    from_version: int = Field(description="The lock_version migrated from.")
    at: AwareDatetime = Field(description="When (UTC).")
    reason: str = Field(description="Why.")
    previous_lock_sha256: str = Field(description="sha256 of the previous lock file's bytes.")


class FreezeLock(FrozenModel):
    """The whole lock file."""

    lock_version: Literal[2] = Field(description="Lock format version.")
    experiment_id: str = Field(description="The experiment this lock freezes (spec/<id>/experiment.yaml id).")
    root: Digest = Field(description="Root hash over the sorted (path, digest) list; see root_rule.")
    root_rule: str = Field(description="How the root hash is computed, in words.")
    frozen_at: AwareDatetime = Field(description="When the latest freeze was made (UTC).")
    reason: str = Field(description="Why the latest freeze was made.")
    git: GitState = Field(description="Git state at the latest freeze.")
    compiler_version: str = Field(description="schemarouter version that wrote the freeze.")
    files: dict[str, FileDigest] = Field(
        description="Every frozen file (project-relative path) and its digest."
    )
    snapshots: dict[str, Any] = Field(
        description="The frozen parsed data of every spec/ YAML and JSON file, by path, so verify can say "
        "what changed. The RFC 8785 JSON of a snapshot hashes to the file's digest."
    )
    catalog_items: dict[str, CatalogItems] = Field(
        description="Per-item digests of catalog files that hold a list of identified items."
    )
    history: tuple[FreezeRecord, ...] = Field(
        description="Every freeze, oldest first; the last entry is the latest freeze."
    )
    scoring_started: ScoringStarted | None = Field(
        description="The first scored run, or null while re-freezing is still allowed."
    )
    annexes: tuple[Annex, ...] = Field(
        default=(), description="Files frozen after the root without changing it; see the module docs."
    )
    migrations: tuple[Migration, ...] = Field(default=(), description="Format migrations, oldest first.")
    code: tuple[CodeRecord, ...] | None = Field(
        default=None,
        description="The code records (runtime/spec_model/code_record.py), oldest first; the key is left "
        "out of the file while there is none, so a lock written before it existed keeps its bytes.",
    )
    lock_digest: Digest | None = Field(
        default=None, description="sha256 of the RFC 8785 JSON of this lock without this key (DIGEST_RULE)."
    )
    preflight: PreflightRecord | None = Field(
        default=None,
        description="The preflight of the latest freeze (sr preflight); omitted from the file when absent, "
        "so a lock written before the field existed keeps its bytes and lock_digest.",
    )

    @property
    def annexed(self) -> dict[str, FileDigest]:
        return {a.path: a.digest for a in self.annexes}

    @property
    def all_files(self) -> dict[str, FileDigest]:
        """Every file the lock covers: the root's files and the annexed ones."""
        return {**self.files, **self.annexed}

    @property
    def current_code(self) -> CodeRecord | None:
        """The last code record pinned under this lock's root, if any."""
        pinned = [r for r in self.code or () if r.root == self.root]
        return pinned[-1] if pinned else None

    def data(self) -> JSONObject:
        """The lock as JSON data; optional keys added after version 2 are omitted while absent."""
        data = self.model_dump(mode="json")
        for key in OPTIONAL_KEYS:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    def sealed(self) -> FreezeLock:
        """This lock with its lock_digest computed."""
        return self.model_copy(update={"lock_digest": content_digest(self.data())})


def content_digest(data: JSONObject) -> Digest:
    """The lock digest of lock data (DIGEST_RULE)."""
    body = {k: v for k, v in data.items() if k != "lock_digest"}
    return Digest(algorithm="sha256", digest=hashlib.sha256(jcs_dumps(body)).hexdigest())


def read_lock_data(path: Path, *, display: str) -> dict[str, Any] | None:
    """The lock's parsed JSON (any version), or None if there is none."""
    raw = _lock_bytes(path, display=display)
    return None if raw is None else _lock_data(raw, display=display)


def _lock_bytes(path: Path, *, display: str) -> bytes | None:
    if not path.exists():
        return None
    try:
        return path.read_bytes()
    except OSError as err:
        raise SchemaRouterError(safe_json.describe(display, err, "cannot read the freeze lock")) from None


def _lock_data(raw: bytes, *, display: str) -> dict[str, Any]:
    try:
        data = safe_json.loads(raw)
    except ValueError as err:
        raise SchemaRouterError(safe_json.describe(display, err, "cannot read the freeze lock")) from None
    if not isinstance(data, dict):
        raise SchemaRouterError(f"{display}: corrupt freeze lock: not a JSON object")
    return data


# The locks last read, by their exact bytes: whether the digest was checked, and the lock they validated
# to. One ``sr run`` reads the same unchanged lock four times (the freeze check, the code check, scoring,
# the scoring record), and ``sr verify --all`` or a freeze reads a few locks in turn; the same bytes
# validate to the same (frozen) lock, so only bytes not seen valid are parsed and checked again. Only a
# valid lock is remembered (runtime/core/content_memo.py).
_VALIDATED: ContentMemo[bytes, tuple[bool, FreezeLock]] = ContentMemo(maxsize=8)


def read_lock(
    path: Path, *, display: str = "spec/freeze.lock", check_digest: bool = True
) -> FreezeLock | None:
    """The lock at ``path``, or None if there is none. A corrupt or hand-edited lock is an error."""
    raw = _lock_bytes(path, display=display)
    if raw is None:
        return None
    seen = _VALIDATED.lookup(raw)
    if seen is not None and (seen[0] or not check_digest):
        return seen[1]
    lock = _validated_lock(_lock_data(raw, display=display), display=display, check_digest=check_digest)
    _VALIDATED.remember(raw, (check_digest, lock))
    return lock


def _validated_lock(data: dict[str, Any], *, display: str, check_digest: bool) -> FreezeLock:
    """The lock ``data`` holds, refusing another version, a corrupt lock and (``check_digest``) a lock
    whose digest does not match its content."""
    version = data.get("lock_version")
    if version == 1:
        raise SchemaRouterError(
            f"{display}: lock_version 1; migrate it with `sr lock migrate` (the root and every frozen "
            "file stay as they are)"
        )
    if version != LOCK_VERSION:
        raise SchemaRouterError(
            f"{display}: lock_version {version!r} is not {LOCK_VERSION}; this schemarouter cannot read it"
        )
    try:
        lock = FreezeLock.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SchemaRouterError(f"{display}: corrupt freeze lock: {where}: {first['msg']}") from None
    if check_digest and lock.lock_digest != content_digest(data):
        raise SchemaRouterError(
            f"{display}: lock_digest does not match the lock's content: the lock was edited by hand. "
            "Restore it from git (`sr verify` names what differs from the committed lock)"
        )
    return lock


def lock_json(lock: FreezeLock) -> str:
    """The lock's file text: sorted keys, 2-space indent, UTF-8 as is, trailing newline."""
    return json.dumps(lock.data(), sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def write_lock(path: Path, lock: FreezeLock) -> None:
    """Write the lock, sealed with its digest, atomically (a reader never sees half a file)."""
    write_text_atomic(path, lock_json(lock.sealed()))


class LockLocation(Protocol):
    """Where an experiment's lock is, as the application layer resolves it (``ProjectPaths`` is one):
    the runtime knows no project layout."""

    @property
    def lock_file(self) -> Path: ...

    @property
    def lock_display(self) -> str: ...

    @property
    def build_dir(self) -> Path: ...

    @property
    def experiment(self) -> str | None: ...


@contextmanager
def lock_guard(paths: LockLocation) -> Iterator[None]:
    """Serialize read-modify-write of the lock between processes (a guard file under build/)."""
    paths.build_dir.mkdir(parents=True, exist_ok=True)
    name = ".freeze-lock.guard" if paths.experiment is None else f".freeze-lock-{paths.experiment}.guard"
    with (paths.build_dir / name).open("a") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(guard, fcntl.LOCK_UN)


def record_scoring_started(paths: LockLocation, run_id: str, *, compiled: CompiledSpec) -> ScoringStarted:
    """Record in the experiment's lock that the first scored run, ``run_id``, started under ``compiled``.

    Refuses a draft and a compiled spec whose freeze root is not the lock's. Idempotent: when scoring
    already started, the first record is returned unchanged. From then on ``sr freeze`` refuses any change
    to a frozen file. The caller should commit the lock.
    """
    if compiled.build.draft or compiled.build.freeze is None:
        raise SchemaRouterError(
            "a draft (unfrozen) spec cannot be scored; run `sr freeze --reason ...` first"
        )
    with lock_guard(paths):
        lock = read_lock(paths.lock_file, display=paths.lock_display)
        if lock is None:
            raise SchemaRouterError(f"{paths.lock_display}: no freeze lock; a draft cannot be scored")
        if lock.root != compiled.build.freeze.root:
            raise SchemaRouterError(
                f"the compiled spec was frozen at {compiled.build.freeze.root}, but {paths.lock_display} is "
                f"now at {lock.root}; recompile (sr compile) before scoring"
            )
        if lock.scoring_started is not None:
            return lock.scoring_started
        started = ScoringStarted(run_id=run_id, at=datetime.now(UTC).replace(microsecond=0), root=lock.root)
        write_lock(paths.lock_file, lock.model_copy(update={"scoring_started": started}))
        return started


def scoring_started(paths: LockLocation) -> ScoringStarted | None:
    """The first scored run recorded in the lock, or None (also when there is no lock)."""
    lock = read_lock(paths.lock_file, display=paths.lock_display)
    return None if lock is None else lock.scoring_started
