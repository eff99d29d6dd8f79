"""The freeze locks are append-only: checked against git HEAD, and through the branch's history.

A lock may grow (a new freeze appended to ``history`` before scoring, the scoring record, an annex from
a migration) but never lose or rewrite what it recorded. Between two versions of one experiment's lock
(older -> newer) these are refused, each named:

* a freeze entry of the older ``history`` missing or changed in the newer one;
* a ``scoring_started`` record removed or changed;
* the root changed after scoring started, or changed to a root the newer history does not list;
* an annex, a migration record or a code record removed or rewritten (appending one is growth);
* the lock of an experiment whose scoring had started disappearing.

``head_lock_problems`` compares the working lock with HEAD's (so restoring an old lock or deleting
the scoring record is caught before it is committed); ``history_problems`` (``sr verify --history``,
run by CI) walks every first-parent commit that touched ``spec/`` and names the commit that broke the
rule. Locks are matched by experiment id across the move from the flat layout (``spec/freeze.lock``,
id from that commit's ``spec/experiment.yaml``) to ``spec/<id>/freeze.lock``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compiler.git_info import run_git
from compiler.yaml_loader import load_yaml_text
from runtime.spec_model import FreezeLock
from schemarouter.project import LOCK_NAME, PROJECT_FILE, ProjectPaths


def _git_top(root: Path) -> Path | None:
    top = run_git(root, "rev-parse", "--show-toplevel")
    return Path(top.strip()).resolve() if top else None


def _show_json(root: Path, commit: str, path: str) -> dict[str, Any] | None:
    text = run_git(root, "show", f"{commit}:{path}")
    if text is None:
        return None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return {"_unreadable": True}
    return data if isinstance(data, dict) else {"_unreadable": True}


def _record_key(entry: Any) -> str:
    return json.dumps(entry, sort_keys=True)


def _root_of(data: dict[str, Any]) -> str | None:
    root = data.get("root")
    return root.get("digest") if isinstance(root, dict) else None


def append_only_problems(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What ``new`` lost or rewrote of ``old`` (two versions of one experiment's lock data)."""
    if old.get("_unreadable") or new.get("_unreadable"):
        return ["the lock is not readable JSON"] if new.get("_unreadable") else []
    new_history = new.get("history") or []
    problems = _history_problems(old.get("history") or [], new_history)
    started = old.get("scoring_started")
    if started is not None:
        problems += _scoring_started_problems(started, old, new)
    elif _root_of(new) != _root_of(old):
        listed = {(e.get("root") or {}).get("digest") for e in new_history if isinstance(e, dict)}
        if _root_of(new) not in listed:
            problems.append(f"root: {_root_of(old)} -> {_root_of(new)}, a root no freeze in history made")
    for key in ("annexes", "migrations", "code"):
        old_items, new_items = old.get(key) or [], new.get(key) or []
        if [_record_key(x) for x in new_items[: len(old_items)]] != [_record_key(x) for x in old_items]:
            problems.append(f"{key}: an earlier entry removed or rewritten")
    return problems


def _history_problems(old_history: list[Any], new_history: list[Any]) -> list[str]:
    """Each freeze of ``old_history`` that ``new_history`` removed or rewrote, in order."""
    problems: list[str] = []
    for index, entry in enumerate(old_history):
        root = (entry.get("root") or {}).get("digest", "?") if isinstance(entry, dict) else "?"
        when = entry.get("frozen_at", "?") if isinstance(entry, dict) else "?"
        if index >= len(new_history):
            problems.append(f"history: freeze {index + 1} (root {root}, {when}) removed")
        elif _record_key(new_history[index]) != _record_key(entry):
            problems.append(f"history: freeze {index + 1} (root {root}, {when}) rewritten")
    return problems


def _scoring_started_problems(started: dict[str, Any], old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Once scoring started, its record stays as it was and the root cannot move."""
    problems: list[str] = []
    now = new.get("scoring_started")
    if now is None:
        problems.append(
            f"scoring_started: the record of run {started.get('run_id')} (root "
            f"{(started.get('root') or {}).get('digest')}) removed"
        )
    elif _record_key(now) != _record_key(started):
        problems.append(
            f"scoring_started: rewritten (run {started.get('run_id')} at {started.get('at')} -> "
            f"run {now.get('run_id')} at {now.get('at')})"
        )
    if _root_of(new) != _root_of(old):
        problems.append(f"root: {_root_of(old)} -> {_root_of(new)} after scoring started")
    return problems


def head_lock_problems(paths: ProjectPaths, lock: FreezeLock) -> list[str]:
    """What the working lock lost or rewrote of the lock committed at HEAD (empty without git)."""
    top = _git_top(paths.root)
    if top is None or top != paths.root.resolve():
        return []
    committed = _show_json(paths.root, "HEAD", paths.lock_display)
    if committed is None:
        return []
    return [f"against HEAD: {p}" for p in append_only_problems(committed, lock.data())]


def _experiment_locks(root: Path, commit: str) -> dict[str, str]:
    """Experiment id -> lock path at ``commit``."""
    listing = run_git(root, "ls-tree", "-r", "--name-only", commit, "--", "spec") or ""
    found: dict[str, str] = {}
    for path in listing.splitlines():
        parts = path.split("/")
        if len(parts) == 3 and parts[2] == LOCK_NAME:
            found[parts[1]] = path
        elif path == f"spec/{LOCK_NAME}":
            found[_flat_experiment_id(root, commit)] = path
    return found


def _flat_experiment_id(root: Path, commit: str) -> str:
    data = _show_json(root, commit, f"spec/{LOCK_NAME}") or {}
    if isinstance(data.get("experiment_id"), str):
        return str(data["experiment_id"])
    text = run_git(root, "show", f"{commit}:spec/experiment.yaml")
    loaded = load_yaml_text(text, file="spec/experiment.yaml") if text is not None else None
    if loaded is not None and isinstance(loaded.data, dict) and loaded.data.get("id") is not None:
        return str(loaded.data["id"])
    return "(flat)"


def history_problems(root: Path) -> tuple[int, list[str]]:
    """(commits read, problems) for every first-parent commit of HEAD that touched the locks."""
    log = run_git(root, "log", "--first-parent", "--reverse", "--format=%H", "--", "spec", PROJECT_FILE)
    if log is None:
        return 0, ["not a git repository with commits: nothing to walk"]
    commits = log.split()
    previous: dict[str, tuple[str, str, dict[str, Any]]] = {}
    problems: list[str] = []
    for commit in commits:
        current: dict[str, tuple[str, str, dict[str, Any]]] = {}
        for experiment, path in _experiment_locks(root, commit).items():
            data = _show_json(root, commit, path)
            if data is not None:
                current[experiment] = (commit, path, data)
        for experiment, (_, old_path, old) in previous.items():
            if experiment not in current:
                if old.get("scoring_started") is not None:
                    problems.append(
                        f"{commit[:12]}: {old_path}: removed, though scoring of experiment {experiment} "
                        "had started"
                    )
                continue
            _, path, new = current[experiment]
            problems += [f"{commit[:12]}: {path}: {p}" for p in append_only_problems(old, new)]
        previous = current
    return len(commits), problems
