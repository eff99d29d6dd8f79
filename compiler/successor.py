"""``sr experiment new ID --from PARENT --reason``: a successor experiment, as an unfrozen draft.

Order: check the new id and the parent -> copy the parent's spec/ (without its lock, lineage and
deviations log) and catalogs/ -> set the new id in experiment.yaml and protocol.yaml (line edits, so
comments stay) -> write lineage.yaml {parent, parent_root, reason} and a deviations log whose entries
for the id change are filled in -> all with their schemas. The parent is never written to.

A successor may change anything, the protocol included: that is what a new preregistration is. Every
difference from the parent is then a declared deviation (``sr deviations``), and ``sr freeze`` refuses
until each has a rationale.
"""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import yaml

from schemarouter.compiler.deviations import deviation_report, write_log
from schemarouter.compiler.experiments import DEVIATIONS_FILE, LINEAGE_FILE
from schemarouter.errors import SchemaRouterError
from schemarouter.project import LOCK_NAME, ProjectPaths
from schemarouter.runtime.spec_model import read_lock

IDENTITY_RATIONALE = "The successor's own identity, set by sr experiment new."
_NOT_COPIED = (LOCK_NAME, LINEAGE_FILE, DEVIATIONS_FILE, "lineage.schema.json", "deviations.schema.json")


def new_experiment(
    paths: ProjectPaths, *, new_id: str, parent_id: str, reason: str, now: datetime | None = None
) -> ProjectPaths:
    """Create experiment ``new_id`` from ``parent_id``; return its paths."""
    reason = reason.strip()
    if not reason:
        raise SchemaRouterError('sr experiment new needs a reason: --reason "<why>"')
    if paths.experiment is None:
        raise SchemaRouterError(
            f"{paths.root} holds one experiment in the flat layout (no schemarouter.yaml); successors "
            "need the experiments layout (spec/<id>/, catalogs/<id>/, golden/<id>/)"
        )
    parent = paths.with_experiment(parent_id)
    child = paths.with_experiment(new_id)
    if not (parent.spec_dir / "experiment.yaml").is_file():
        raise SchemaRouterError(f"unknown parent experiment {parent_id!r}")
    for target in (child.spec_dir, child.catalogs_dir, child.golden_dir):
        if target.exists():
            raise SchemaRouterError(f"{target.relative_to(paths.root)}: already exists; choose another id")
    lock = read_lock(parent.lock_file, display=parent.lock_display)
    try:
        shutil.copytree(parent.spec_dir, child.spec_dir, ignore=shutil.ignore_patterns(*_NOT_COPIED, ".*"))
        if parent.catalogs_dir.is_dir():
            shutil.copytree(parent.catalogs_dir, child.catalogs_dir, ignore=shutil.ignore_patterns(".*"))
        _set_id(child.spec_dir / "experiment.yaml", "id", new_id)
        if (child.spec_dir / "protocol.yaml").is_file():
            _set_id(child.spec_dir / "protocol.yaml", "experiment_id", new_id)
        _write_meta(child, parent_id, lock, reason, now or datetime.now(UTC).replace(microsecond=0))
        report = deviation_report(child)
        assert report is not None
        write_log(
            child,
            [
                {
                    "change": d.change,
                    "kind": d.kind,
                    "rationale": IDENTITY_RATIONALE if _is_identity(d.detail) else "",
                }
                for d in report.differences
            ],
        )
    except BaseException:
        shutil.rmtree(child.spec_dir, ignore_errors=True)
        shutil.rmtree(child.catalogs_dir, ignore_errors=True)
        raise
    return child


def _is_identity(detail: str) -> bool:
    return detail.startswith(("experiment.id:", "protocol.experiment_id:"))


def _set_id(path: Path, key: str, value: str) -> None:
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(rf"^{key}:[^\n]*$", re.MULTILINE)
    if len(pattern.findall(text)) != 1:
        raise SchemaRouterError(f"{path}: expected one top-level `{key}:` line to set the new id")
    path.write_text(pattern.sub(f'{key}: "{value}"', text, count=1), encoding="utf-8")


def _write_meta(child: ProjectPaths, parent_id: str, lock: object, reason: str, now: datetime) -> None:
    from schemarouter.runtime.spec_model import FreezeLock

    parent_root = lock.root.digest if isinstance(lock, FreezeLock) else None
    started = lock.scoring_started.run_id if isinstance(lock, FreezeLock) and lock.scoring_started else None
    lineage = {
        "parent": parent_id,
        "parent_root": parent_root,
        "parent_scoring_started": started,
        "reason": reason,
        "created_at": now.isoformat().replace("+00:00", "Z"),
    }
    (child.spec_dir / LINEAGE_FILE).write_text(
        "# Where this experiment came from; written by `sr experiment new`, frozen with the experiment.\n"
        + yaml.safe_dump(lineage, sort_keys=False, allow_unicode=True, width=100),
        encoding="utf-8",
    )
    schemas = resources.files("schemarouter.compiler").joinpath("schemas")
    child.schema_dir.mkdir(parents=True, exist_ok=True)
    for name in ("lineage.schema.json", "deviations.schema.json"):
        (child.schema_dir / name).write_text(schemas.joinpath(name).read_text("utf-8"), encoding="utf-8")
