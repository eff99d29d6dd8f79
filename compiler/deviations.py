"""A successor's declared deviations: every semantic difference from its parent, each with a rationale.

The differences are generated, never written by hand: the same semantic diff ``sr verify`` prints
(``spec/retriever.yaml: retriever.fields[summary_en].boost: 2.0 -> 3.0``), computed between the
parent's files and the successor's, file by file. Catalog files are summarised per file (which items
were added, removed or changed), since one rationale covers a regeneration. The lineage and deviations
files themselves are not differences. Changes to the protocol file are kind ``protocol``, apart from
other spec changes (kind ``spec``) and catalog changes (kind ``catalog``).

The log (``spec/<id>/deviations.yaml``) is frozen with the successor. ``sr freeze`` refuses while a
difference has no rationale (MISSING) or the log lists a difference that no longer exists (STALE).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

import yaml

from compiler.canonical import Fingerprint, fingerprint_items
from compiler.experiments import DEVIATIONS_FILE, LINEAGE_FILE, lineage_of, read_spec_data
from compiler.frozen_files import is_snapshotted
from compiler.protocol_values import is_protocol_value, protocol_value_lines
from compiler.semantic_diff import describe_changes
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject
from runtime.spec_model import read_lock
from schemarouter.project import ProjectPaths

if TYPE_CHECKING:
    from compiler.validate import ValidatedSpecs

META_FILES = frozenset(
    {
        f"spec/{LINEAGE_FILE}",
        f"spec/{DEVIATIONS_FILE}",
        "spec/schema/lineage.schema.json",
        "spec/schema/deviations.schema.json",
        "spec/peeks.yaml",  # a record written by sr run, never a design change
        "spec/schema/peeks.schema.json",
        "spec/pilots.yaml",  # run bookkeeping written by sr run / sr confirm (compiler/run_records.py)
        "spec/schema/pilots.schema.json",
        "spec/confirmation.yaml",
        "spec/schema/confirmation.schema.json",
    }
)
PROTOCOL_FILES = frozenset({"spec/protocol.yaml", "spec/schema/protocol.schema.json"})
# Log entries about behaviour (schemarouter/application/behaviour.py: conditions whose canary episodes
# moved) need the engine, which the compiler never reaches: the application layer checks them.
BEHAVIOUR_PREFIX = "behaviour: "
MAX_ITEMS_NAMED = 8


@dataclass(frozen=True)
class Difference:
    """One semantic difference of a successor from its parent."""

    file: str
    detail: str
    kind: str

    @property
    def change(self) -> str:
        return f"{self.file}: {self.detail}"


class LogEntry(TypedDict):
    """One entry of deviations.yaml as written (in this key order)."""

    change: str
    kind: str
    rationale: str


@dataclass
class DeviationReport:
    """The differences, the log's entries, and what is missing or stale."""

    parent: str
    differences: list[Difference]
    rationales: dict[str, str] = field(default_factory=dict)
    stale: list[str] = field(default_factory=list)

    @property
    def missing(self) -> list[Difference]:
        return [d for d in self.differences if not self.rationales.get(d.change, "").strip()]

    @property
    def complete(self) -> bool:
        return not self.missing and not self.stale

    def lines(self) -> list[str]:
        out = [*protocol_value_lines(), f"deviations from {self.parent}: {len(self.differences)}"]
        for kind in ("protocol", "spec", "catalog"):
            group = [d for d in self.differences if d.kind == kind]
            if group:
                out.append(f"  {kind} changes ({len(group)}):")
            for d in group:
                rationale = self.rationales.get(d.change, "").strip()
                out.append(f"    {d.change}")
                out.append(f"      rationale: {rationale if rationale else 'MISSING'}")
        for change in self.stale:
            out.append(f"  STALE (no longer a difference; remove it from the log): {change}")
        return out


def _kind(path: str, detail: str = "") -> str:
    if path in PROTOCOL_FILES or is_protocol_value(path, detail):
        return "protocol"
    return "catalog" if path.startswith("catalogs/") else "spec"


def _fingerprints(paths: ProjectPaths) -> dict[str, Fingerprint]:
    from compiler.verify import current_fingerprints

    return current_fingerprints(paths)


def semantic_differences(
    parent: ProjectPaths, child: ProjectPaths, *, child_fingerprints: dict[str, Fingerprint] | None = None
) -> list[Difference]:
    """Every semantic difference of ``child`` from ``parent``, file by file, in path order."""
    old, new = _fingerprints(parent), child_fingerprints or _fingerprints(child)
    found: list[Difference] = []
    for path in sorted((set(old) | set(new)) - META_FILES):
        kind = _kind(path)
        if path not in old:
            found.append(Difference(path, "file added", kind))
        elif path not in new:
            found.append(Difference(path, "file removed", kind))
        elif old[path].digest != new[path].digest:
            found += [
                Difference(path, line, _kind(path, line)) for line in _file_changes(old[path], new[path])
            ]
    return found


def _file_changes(old: Fingerprint, new: Fingerprint) -> list[str]:
    if is_snapshotted(old.path) and old.is_data and new.is_data:
        prefix = old.path.rsplit("/", 1)[-1].removesuffix(".yaml").removesuffix(".json")
        return describe_changes(old.data, new.data, prefix) or ["content changed (same data, another form)"]
    old_items = fingerprint_items(old)
    new_items = fingerprint_items(new)
    if old_items is None or new_items is None or old_items[0] != new_items[0]:
        return ["content changed"]
    key, before, after = old_items[0], old_items[1], new_items[1]
    parts = []
    for verb, ids in (
        ("added", sorted(set(after) - set(before))),
        ("removed", sorted(set(before) - set(after))),
        ("changed", sorted(i for i in set(before) & set(after) if before[i] != after[i])),
    ):
        if ids:
            named = ", ".join(ids[:MAX_ITEMS_NAMED]) + (
                f", ... ({len(ids)} in all)" if len(ids) > MAX_ITEMS_NAMED else ""
            )
            parts.append(f"{len(ids)} {key}s {verb} ({named})")
    return ["; ".join(parts) or "content outside the identified items changed"]


def read_log(paths: ProjectPaths) -> list[JSONObject]:
    """The log's object entries as the file holds them (empty without the file or its list)."""
    data = read_spec_data(paths, DEVIATIONS_FILE)
    entries = data.get("deviations") if isinstance(data, dict) else None
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def deviation_report(
    paths: ProjectPaths, *, child_fingerprints: dict[str, Fingerprint] | None = None
) -> DeviationReport | None:
    """The deviations of a successor from its parent; None for an experiment without lineage."""
    lineage = lineage_of(paths)
    if lineage is None:
        return None
    parent = paths.with_experiment(lineage.parent)
    if not parent.spec_dir.is_dir():
        raise SchemaRouterError(
            f"{paths.display('spec/lineage.yaml')}: parent experiment {lineage.parent!r} not found"
        )
    parent_lock = read_lock(parent.lock_file, display=parent.lock_display)
    parent_root = parent_lock.root.digest if parent_lock else None
    if lineage.parent_root is not None and parent_root != lineage.parent_root:
        raise SchemaRouterError(
            f"{paths.display('spec/lineage.yaml')}: parent {lineage.parent} was at root "
            f"{lineage.parent_root} "
            f"when this successor was made and is now at {parent_root}; the differences would be against "
            "another parent"
        )
    differences = semantic_differences(parent, paths, child_fingerprints=child_fingerprints)
    rationales = {
        str(e.get("change")): str(e.get("rationale") or "")
        for e in read_log(paths)
        if not str(e.get("change")).startswith(BEHAVIOUR_PREFIX)
    }
    current = {d.change for d in differences}
    stale = [change for change in rationales if change not in current]
    return DeviationReport(parent=lineage.parent, differences=differences, rationales=rationales, stale=stale)


def require_declared_deviations(
    paths: ProjectPaths, validated: ValidatedSpecs | None, fingerprints: dict[str, Fingerprint]
) -> None:
    """Refuse to freeze a successor whose log lacks a rationale or lists a difference that is gone."""
    report = deviation_report(paths, child_fingerprints=fingerprints)
    if report is None or report.complete:
        return
    where = paths.display(f"spec/{DEVIATIONS_FILE}")
    lines = [f"{where}: refusing to freeze: every deviation from {report.parent} needs a rationale"]
    lines += [f"{where}: MISSING rationale: {d.change}" for d in report.missing]
    lines += [f"{where}: STALE entry (no longer a difference): {c}" for c in report.stale]
    lines.append(f"Write the rationales in {where} (sr deviations --update adds the missing entries).")
    raise SchemaRouterError("\n".join(lines))


def update_log(paths: ProjectPaths, *, extra: list[Difference] | None = None) -> DeviationReport:
    """Rewrite the log: every current difference (rationale kept, or empty), ``extra`` ones (behaviour)
    after them; an entry that is no longer a difference is removed, not left for a hand edit."""
    report = deviation_report(paths)
    if report is None:
        raise SchemaRouterError(
            f"experiment {paths.experiment}: no {LINEAGE_FILE}; only a successor (sr experiment new) "
            "has deviations"
        )
    kept = {str(e.get("change")): str(e.get("rationale") or "") for e in read_log(paths)}
    differences = [*report.differences, *(extra or [])]
    entries: list[LogEntry] = [
        {"change": d.change, "kind": d.kind, "rationale": kept.get(d.change, "")} for d in differences
    ]
    write_log(paths, entries)
    return DeviationReport(
        parent=report.parent,
        differences=differences,
        rationales={d.change: kept.get(d.change, "") for d in differences},
    )


LOG_HEADER = (
    "# Declared deviations from the parent experiment: one entry per semantic difference, generated by\n"
    "# `sr deviations --update`; write each rationale by hand. `sr freeze` refuses while a rationale is\n"
    "# empty or an entry names a difference that no longer exists. Frozen with the experiment.\n"
)


def write_log(paths: ProjectPaths, entries: list[LogEntry]) -> None:
    body = yaml.safe_dump({"deviations": entries}, sort_keys=False, allow_unicode=True, width=100)
    (paths.spec_dir / DEVIATIONS_FILE).write_text(LOG_HEADER + body, encoding="utf-8")
