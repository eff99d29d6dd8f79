"""``spec/<id>/peeks.yaml``: evaluation outcomes seen before the experiment was frozen.

A draft may run on the evaluation surface (``sr run --draft``): nothing stops a person from looking at
those outcomes and then changing the draft. Peeking is allowed only in the open, so ``sr run`` records
every such run here, with its run id, before executing it. The file is an ordinary spec file with its
schema (``spec/<id>/schema/peeks.schema.json``, written with it), so ``sr freeze`` freezes it with the
experiment: the lock's digest covers it, and every report and ``sr experiments`` show it. It is a
record, not a design change, so it is never a deviation, and ``sr experiment new`` does not copy it
into a successor. Only the harness writes it; entries are only ever appended.
"""

from __future__ import annotations

import json
from datetime import datetime

from compiler.experiments import read_spec_data
from runtime.core.atomic_write import write_text_atomic
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject, JSONValue
from schemarouter.project import ProjectPaths

PEEKS_FILE = "peeks.yaml"
PEEKS_SCHEMA_FILE = "peeks.schema.json"
KEY = "evaluation_outcomes_seen_before_freeze"

HEADER = (
    "# Written by `sr run`, never by hand: runs of this experiment on the evaluation surface while it was\n"
    "# a draft (no freeze.lock). Frozen with the experiment, shown by reports and `sr experiments`.\n"
)

FIELDS = ("run_id", "recorded_at", "agent", "conditions", "catalogs", "tasks", "episodes")  # written order

SCHEMA: JSONObject = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "peeks.schema.json",
    "title": "spec/peeks.yaml: evaluation outcomes seen before freeze (written by sr run)",
    "type": "object",
    "additionalProperties": False,
    "required": [KEY],
    "properties": {
        KEY: {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": list(FIELDS),
                "properties": {
                    "run_id": {"type": "string", "minLength": 1},
                    "recorded_at": {"type": "string", "minLength": 1},
                    "agent": {"type": "string"},
                    "conditions": {"type": "array", "items": {"type": "string"}},
                    "catalogs": {"type": "array", "items": {"type": "integer"}},
                    "tasks": {"type": "integer", "minimum": 0},
                    "episodes": {"type": "integer", "minimum": 0},
                },
            },
        }
    },
}


def read_peeks(paths: ProjectPaths) -> list[JSONObject]:
    """The recorded evaluation runs of a draft (empty when there is no peeks.yaml)."""
    data = read_spec_data(paths, PEEKS_FILE)
    if data is None:
        return []
    listed = data.get(KEY) if isinstance(data, dict) else None
    if not isinstance(listed, list):
        raise SchemaRouterError(f"{paths.display('spec/' + PEEKS_FILE)}: {KEY} must be a list")
    return [dict(entry) for entry in listed if isinstance(entry, dict)]


def _scalar(value: JSONValue) -> str:
    return json.dumps(value, ensure_ascii=False)  # JSON scalars and flow lists are plain YAML 1.2


def render_peeks(entries: list[JSONObject]) -> str:
    lines = [HEADER.rstrip("\n"), f"{KEY}:"]
    for entry in entries:
        first = True
        for key in FIELDS:
            lines.append(f"  {'- ' if first else '  '}{key}: {_scalar(entry[key])}")
            first = False
    return "\n".join(lines) + "\n"


def record_peek(
    paths: ProjectPaths,
    *,
    run_id: str,
    agent: str,
    conditions: list[str],
    catalogs: list[int],
    tasks: int,
    episodes: int,
    now: datetime,
) -> bool:
    """Append a draft's evaluation run (once per run id); write the schema beside it if missing.
    Returns whether an entry was added."""
    entries = read_peeks(paths)
    if any(e.get("run_id") == run_id for e in entries):
        return False
    entries.append(
        {
            "run_id": run_id,
            "recorded_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "agent": agent,
            "conditions": list(conditions),
            "catalogs": [int(c) for c in catalogs],
            "tasks": int(tasks),
            "episodes": int(episodes),
        }
    )
    schema_path = paths.schema_dir / PEEKS_SCHEMA_FILE
    try:
        if not schema_path.is_file():
            schema_path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(schema_path, json.dumps(SCHEMA, indent=2) + "\n")
        write_text_atomic(paths.spec_dir / PEEKS_FILE, render_peeks(entries))
    except OSError as err:
        raise SchemaRouterError(
            f"{paths.display('spec/' + PEEKS_FILE)}: cannot record this draft's evaluation run "
            f"({err.strerror or err}); a draft runs on the evaluation surface only in the open"
        ) from None
    return True


def peek_lines(entries: list[JSONObject]) -> list[str]:
    """Human lines for reports: how many evaluation runs were seen before freeze, and their ids."""
    if not entries:
        return []
    ids = ", ".join(str(e["run_id"]) for e in entries)
    return [f"Evaluation outcomes seen before freeze: {len(entries)} run(s): {ids}"]
