"""``spec/<id>/pilots.yaml``: every run of a draft, on any surface, with its verdict line.

A design is chosen on pilots; a reviewer must see how many surfaces it was tried on before the one that
was reported. ``sr run`` (and ``sr confirm``) append one entry when a session of a draft's run ends:
the surface's name and sha256, the scope, the verdict line, the run id and the time. Outcomes stay in
the run directory; the log holds only what identifies the run and its verdict. Entries are chained by
digest (``chained_log.py``) and checked by ``sr verify``; ``sr freeze`` freezes the file with the draft.

How it relates to ``peeks.yaml``: a draft's run on the evaluation surface (``sr run --draft``) is
recorded in both. ``peeks.yaml`` is written before the first episode (so an interrupted peek is still
recorded) and is what reports call "evaluation outcomes seen before freeze"; ``pilots.yaml`` is the
complete log of every surface, written when the session ends, with surface ``evaluation``.

A frozen experiment's folder is never written: a pilot of a frozen experiment is recorded in its run
directory only (its manifest's ``surface``), and the console says so. Such a pilot cannot change the
design any more, which is what the log exists to show.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

from compiler.chained_log import ChainedLog, append_entry, read_entries
from runtime.core.json_value import JSONObject
from schemarouter.project import ProjectPaths

PILOTS = ChainedLog(
    file="pilots.yaml",
    key="pilots",
    fields=("run_id", "recorded_at", "surface", "surface_sha256", "scope", "verdict"),
    header=(
        "# Written by `sr run` / `sr confirm`, never by hand: every run of this draft on any surface, with\n"
        "# its verdict line. Entries are chained by sha256 (sr verify checks them); frozen with the draft.\n"
    ),
    item_properties={
        "run_id": {"type": "string", "minLength": 1},
        "recorded_at": {"type": "string", "minLength": 1},
        "surface": {"type": "string", "minLength": 1},
        "surface_sha256": {"type": "string"},
        "scope": {
            "type": "object",
            "additionalProperties": False,
            "required": ["conditions", "catalogs", "tasks", "full"],
            "properties": {
                "conditions": {"type": "array", "items": {"type": "string"}},
                "catalogs": {"type": "array", "items": {"type": "integer"}},
                "tasks": {"type": "integer", "minimum": 0},
                "full": {"type": "boolean"},
            },
        },
        "verdict": {"type": "string", "minLength": 1},
    },
)


def read_pilots(paths: ProjectPaths) -> list[JSONObject]:
    """The recorded pilots of a draft (empty without pilots.yaml)."""
    return read_entries(paths, PILOTS)


def record_pilot(
    paths: ProjectPaths,
    *,
    run_id: str,
    surface: str,
    surface_sha256: str,
    scope: JSONObject,
    verdict: str,
    now: datetime,
    run_created_at: datetime | None = None,
) -> bool:
    """Append one entry, unless this run directory's last entry already holds this verdict (a resumed run).

    ``run_created_at``: when the run directory was created (its manifest). An entry recorded before that
    belongs to an earlier directory of the same name, since deleted: a run started afresh under a reused
    run id is another pilot and is recorded."""
    entries = read_pilots(paths)
    last = next((e for e in reversed(entries) if e.get("run_id") == run_id), None)
    if last is not None and last.get("verdict") == verdict and _same_directory(last, run_created_at):
        return False
    append_entry(
        paths,
        PILOTS,
        {
            "run_id": run_id,
            "recorded_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "surface": surface,
            "surface_sha256": surface_sha256,
            "scope": scope,
            "verdict": verdict,
        },
    )
    return True


def _same_directory(entry: JSONObject, run_created_at: datetime | None) -> bool:
    if run_created_at is None:
        return True
    created = run_created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(entry.get("recorded_at", "")) >= created


def pilot_counts(entries: list[JSONObject]) -> dict[str, int]:
    """Runs per surface name (a run recorded twice, say once not terminal and once scored, counts once)."""
    runs = {(str(e.get("surface")), str(e.get("run_id"))) for e in entries}
    return dict(sorted(Counter(surface for surface, _ in runs).items()))


def counts_text(counts: dict[str, int]) -> str:
    """``dev 2, file 1``: the counts per surface, for one line."""
    return ", ".join(f"{surface} {count}" for surface, count in counts.items())


def pilot_lines(entries: list[JSONObject]) -> list[str]:
    """Every recorded pilot as one line (``sr freeze`` prints all of them)."""
    return [
        f"  {e['recorded_at']}  {e['surface']} (sha256 {str(e['surface_sha256'])[:12]})  run {e['run_id']}: "
        f"{e['verdict']}"
        for e in entries
    ]
