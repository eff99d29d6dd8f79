"""An append-only log in a draft's spec folder whose entries are chained by digest.

``spec/<id>/pilots.yaml`` and ``spec/<id>/confirmation.yaml`` are run bookkeeping written by the
harness, never by hand. Each entry carries ``previous_sha256`` (the previous entry's ``sha256``, or
``""`` for the first) and ``sha256``: the sha256 of the RFC 8785 JSON of the entry without its own
``sha256``. An edited field breaks that entry's digest; a removed or reordered entry breaks the next
one's ``previous_sha256``; a removed last entry is found by comparing with the file at git HEAD, whose
entries must be a prefix of the file's (``sr verify``). At freeze the file is frozen with the draft, so
the lock's digest covers it from then on.

The file is plain YAML 1.2: every value is written as a JSON scalar or flow collection.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from compiler.experiments import read_spec_data
from runtime.core.atomic_write import write_text_atomic
from runtime.core.errors import SchemaRouterError
from runtime.core.jcs import dumps as jcs_dumps
from runtime.core.json_value import JSONObject, JSONValue
from schemarouter.project import ProjectPaths

DIGEST_KEYS = ("previous_sha256", "sha256")


@dataclass(frozen=True)
class ChainedLog:
    """One log: its file in spec/<id>/, its list key, its entry keys in written order, and its schema."""

    file: str
    key: str
    fields: tuple[str, ...]  # without the digest keys
    header: str
    item_properties: JSONObject  # the JSON Schema of each field but the digests

    @property
    def schema_file(self) -> str:
        return self.file.removesuffix(".yaml") + ".schema.json"

    @property
    def shown(self) -> str:
        return f"spec/{self.file}"

    def schema(self) -> JSONObject:
        properties: JSONObject = {
            **self.item_properties,
            "previous_sha256": {"type": "string", "pattern": "^([0-9a-f]{64})?$"},
            "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        }
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": self.schema_file,
            "title": f"{self.shown}: written by the harness, entries chained by sha256",
            "type": "object",
            "additionalProperties": False,
            "required": [self.key],
            "properties": {
                self.key: {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": [*self.fields, *DIGEST_KEYS],
                        "properties": properties,
                    },
                }
            },
        }


def entry_digest(entry: JSONObject) -> str:
    """sha256 of the RFC 8785 JSON of the entry without its own ``sha256``."""
    body = {k: v for k, v in entry.items() if k != "sha256"}
    return hashlib.sha256(jcs_dumps(body)).hexdigest()


def read_entries(paths: ProjectPaths, log: ChainedLog) -> list[JSONObject]:
    """The log's entries (empty when the file is absent); a file that is not a list is one line."""
    data = read_spec_data(paths, log.file)
    if data is None:
        return []
    return entries_of(data, paths.display(log.shown), log)


def entries_of(data: JSONValue, shown: str, log: ChainedLog) -> list[JSONObject]:
    """The object entries of the file's list (other items are left to the schema check)."""
    listed = data.get(log.key) if isinstance(data, dict) else None
    if not isinstance(listed, list):
        raise SchemaRouterError(f"{shown}: {log.key} must be a list")
    return [dict(entry) for entry in listed if isinstance(entry, dict)]


def render(log: ChainedLog, entries: Sequence[JSONObject]) -> str:
    lines = [log.header.rstrip("\n"), f"{log.key}:"]
    for entry in entries:
        for index, key in enumerate((*log.fields, *DIGEST_KEYS)):
            value = json.dumps(entry[key], ensure_ascii=False, sort_keys=True)
            lines.append(f"  {'- ' if index == 0 else '  '}{key}: {value}")
    return "\n".join(lines) + "\n"


def chain_problems(entries: Sequence[JSONObject], shown: str) -> list[str]:
    """Every entry whose digest or link does not hold, as one line each."""
    problems = []
    previous = ""
    for number, entry in enumerate(entries, start=1):
        if entry.get("previous_sha256") != previous:
            problems.append(
                f"{shown}: entry {number}: previous_sha256 does not name entry {number - 1}'s digest "
                "(an entry was removed, reordered or inserted by hand)"
            )
        if entry.get("sha256") != entry_digest(entry):
            problems.append(f"{shown}: entry {number}: sha256 does not match its content (edited by hand)")
        previous = str(entry.get("sha256", ""))
    return problems


def append_entry(paths: ProjectPaths, log: ChainedLog, fields: JSONObject) -> JSONObject:
    """Append one entry (refused when the chain does not hold); write the schema beside it if missing."""
    entries = read_entries(paths, log)
    shown = paths.display(log.shown)
    problems = chain_problems(entries, shown)
    if problems:
        raise SchemaRouterError(problems[0] + "; nothing appended (restore the file from git)")
    entry = {key: fields[key] for key in log.fields}
    entry["previous_sha256"] = str(entries[-1]["sha256"]) if entries else ""
    entry["sha256"] = entry_digest(entry)
    schema_path = paths.schema_dir / log.schema_file
    try:
        if not schema_path.is_file():
            schema_path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(schema_path, json.dumps(log.schema(), indent=2) + "\n")
        write_text_atomic(paths.spec_dir / log.file, render(log, [*entries, entry]))
    except OSError as err:
        raise SchemaRouterError(f"{shown}: cannot append ({err.strerror or err})") from None
    return entry


def head_problems(paths: ProjectPaths, log: ChainedLog, entries: Sequence[JSONObject]) -> list[str]:
    """The committed file at git HEAD must be a prefix of the current one (entries only appended)."""
    from compiler.git_info import run_git
    from compiler.yaml_loader import load_yaml_text

    file = paths.spec_dir / log.file
    top = run_git(paths.root, "rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != paths.root.resolve():
        return []  # not the project's own git work tree: the chain alone speaks
    try:
        relative = file.resolve().relative_to(paths.root.resolve()).as_posix()
    except ValueError:
        return []
    text = run_git(paths.root, "show", f"HEAD:{relative}")
    if text is None:
        return []  # not committed (or no git): the chain alone speaks
    shown = paths.display(log.shown)
    loaded = load_yaml_text(text, file=f"HEAD:{relative}")
    if loaded.issues:
        return [f"{shown}: the committed version at HEAD is unreadable: {loaded.issues[0]}"]
    committed = entries_of(loaded.data, f"HEAD:{relative}", log)
    digests = [str(e.get("sha256")) for e in entries]
    if digests[: len(committed)] != [str(e.get("sha256")) for e in committed]:
        return [
            f"{shown}: the {len(committed)} entries committed at HEAD are not the file's first entries "
            "(an entry was removed or rewritten by hand)"
        ]
    return []


def log_problems(paths: ProjectPaths, log: ChainedLog) -> list[str]:
    """Chain and HEAD problems of one log (none when the file is absent)."""
    try:
        entries = read_entries(paths, log)
    except SchemaRouterError as err:
        return [str(err)]
    return chain_problems(entries, paths.display(log.shown)) + head_problems(paths, log, entries)
