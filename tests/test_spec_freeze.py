"""Freeze and verify: round trips, tamper detection with what changed, history, and the scoring hook."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime

import pytest
from spec_support import edit, make_project, write

from compiler import compile_project, freeze_project, record_scoring_started, verify_project
from compiler.canonical import fingerprint, jcs, root_digest, sha256_hex
from compiler.frozen_files import frozen_paths
from runtime.core.errors import SchemaRouterError
from runtime.spec_model import FileDigest, read_lock, scoring_started
from runtime.spec_model.lock import content_digest

CATALOG = json.dumps(
    {
        "catalog_version": 1,
        "endpoints": [{"route_id": "geo.lookup.v1", "x": 1}, {"route_id": "wx.daily.v2", "x": 2}],
    }
)
TASKS = '{"task_id": "S1-en-01", "query": "q1"}\n{"task_id": "S1-en-02", "query": "q2"}\n'


@pytest.fixture
def frozen(tmp_path):
    paths = make_project(tmp_path)
    write(paths, "catalogs/catalog_2.json", CATALOG)
    write(paths, "catalogs/surface.jsonl", TASKS)
    freeze_project(paths, reason="initial", now=datetime(2026, 10, 1, 12, 0, tzinfo=UTC))
    return paths


def _drift(paths) -> list[str]:
    report = verify_project(paths)
    assert not report.clean
    return report.drift_lines()


def test_canonical_hash_rules_are_pinned(tmp_path) -> None:
    # These digests must never change: every existing freeze depends on them.
    assert sha256_hex(jcs({"b": 1, "a": [True, 0.5]})) == (
        "e4d6a8918b0b609f269a674c206311faab4c6753a4491f383c70416a01de9726"
    )
    files = {
        "spec/a.yaml": FileDigest(algorithm="sha256", digest="0" * 64, canonical="jcs-yaml"),
        "catalogs/x.json": FileDigest(algorithm="sha256", digest="f" * 64, canonical="jcs-json"),
    }
    assert root_digest(files).digest == "27e812d68a56e8f596666888bda26702d660d96e69104dfd70bd49eedbbbd67e"
    (tmp_path / "a.yaml").write_text("# comment\nb: 1   # trailing\na: [true, 0.5]\n")
    (tmp_path / "b.yaml").write_text("a:\n  - true\n  - 5.0e-1\nb: 1\n")
    (tmp_path / "c.txt").write_bytes(b"x\r\ny\rz\n")
    (tmp_path / "d.txt").write_bytes(b"x\ny\nz\n")
    assert (
        fingerprint(tmp_path / "a.yaml", "a.yaml").digest == fingerprint(tmp_path / "b.yaml", "b.yaml").digest
    )
    assert fingerprint(tmp_path / "a.yaml", "a.yaml").digest.digest == sha256_hex(
        jcs({"b": 1, "a": [True, 0.5]})
    )
    assert fingerprint(tmp_path / "c.txt", "c.txt").digest == fingerprint(tmp_path / "d.txt", "d.txt").digest
    assert fingerprint(tmp_path / "c.txt", "c.txt").digest.canonical == "bytes-lf"


def test_freeze_then_verify_round_trip(frozen) -> None:
    lock = read_lock(frozen.lock_file)
    assert lock is not None
    assert set(lock.files) == set(frozen_paths(frozen))
    assert "catalogs/catalog_2.json" in lock.files and "spec/schema/gates.schema.json" in lock.files
    assert all(d.algorithm == "sha256" and len(d.digest) == 64 for d in lock.files.values())
    assert lock.root == root_digest(lock.files)
    assert lock.frozen_at == datetime(2026, 10, 1, 12, 0, tzinfo=UTC)
    assert [h.reason for h in lock.history] == ["initial"]
    assert lock.scoring_started is None
    assert lock.git.commit is None  # the temporary project is not a git repository
    assert lock.catalog_items["catalogs/catalog_2.json"].key == "route_id"
    assert lock.catalog_items["catalogs/surface.jsonl"].key == "task_id"
    report = verify_project(frozen)
    assert report.clean and report.root == lock.root


def test_comments_and_formatting_are_not_drift(frozen) -> None:
    edit(
        frozen,
        "spec/gates.yaml",
        "treatment: SR-5-STATE-AWARE",
        "treatment:   'SR-5-STATE-AWARE'   # the treatment",
    )
    assert verify_project(frozen).clean


def test_added_state_field_is_named(frozen) -> None:
    edit(
        frozen,
        "spec/state_contract.yaml",
        "  - name: task_incomplete",
        "  - name: foo\n    type: {kind: boolean}\n    description: x\n  - name: task_incomplete",
    )
    assert _drift(frozen) == [
        "spec/state_contract.yaml: changed",
        'spec/state_contract.yaml: state_contract.allowed: field "foo" added',
    ]


def test_changed_margin_is_named(frozen) -> None:
    edit(frozen, "spec/gates.yaml", "threshold: -0.02", "threshold: -0.05")
    assert _drift(frozen) == [
        "spec/gates.yaml: changed",
        "spec/gates.yaml: gates.criteria[G1].threshold: -0.02 -> -0.05",
    ]


def test_edited_seed_is_named(frozen) -> None:
    edit(frozen, "spec/experiment.yaml", "seed: 20260929", "seed: 1")
    edit(frozen, "spec/experiment.yaml", "surface: 14002", "surface: 14999")
    assert _drift(frozen) == [
        "spec/experiment.yaml: changed",
        "spec/experiment.yaml: experiment.bootstrap.seed: 20260929 -> 1",
        "spec/experiment.yaml: experiment.seeds.surface: 14002 -> 14999",
    ]


def test_removed_and_added_files_are_named(frozen) -> None:
    (frozen.root / "spec/strata.yaml").unlink()
    write(frozen, "catalogs/catalog_9.json", "{}")
    write(frozen, "spec/notes.txt", "hello\n")
    assert _drift(frozen) == [
        "spec/strata.yaml: removed (frozen, now missing)",
        "catalogs/catalog_9.json: added (not in the lock)",
        "spec/notes.txt: added (not in the lock)",
    ]


def test_hidden_files_are_refused_not_skipped(frozen) -> None:
    # A hidden file is neither frozen silently nor skipped (a hidden spec file would still be read).
    write(frozen, "spec/.conditions.yaml.swp", "junk")
    write(frozen, "catalogs/.DS_Store", "junk")
    with pytest.raises(SchemaRouterError) as caught:
        verify_project(frozen)
    hidden = "a hidden file; the freeze covers every file of an experiment, so rename or remove it"
    assert str(caught.value).splitlines() == [
        f"catalogs/.DS_Store: {hidden}",
        f"spec/.conditions.yaml.swp: {hidden}",
    ]


def test_changed_condition_schema_and_catalog_items_are_named(frozen) -> None:
    edit(
        frozen,
        "spec/conditions.yaml",
        "k_per_refresh: 5\n      mode: replace",
        "k_per_refresh: 4\n      mode: replace",
    )
    edit(
        frozen,
        "spec/schema/gates.schema.json",
        '"minLength": 1, "description": "Why',
        '"minLength": 2, "description": "Why',
    )
    write(
        frozen,
        "catalogs/catalog_2.json",
        CATALOG.replace('"x": 2', '"x": 3').replace("geo.lookup.v1", "geo.lookup.v2"),
    )
    write(frozen, "catalogs/surface.jsonl", TASKS + '{"task_id": "S1-en-03", "query": "q3"}\n')
    assert _drift(frozen) == [
        "catalogs/catalog_2.json: changed",
        'catalogs/catalog_2.json: route_id "geo.lookup.v1" removed',
        'catalogs/catalog_2.json: route_id "geo.lookup.v2" added',
        'catalogs/catalog_2.json: route_id "wx.daily.v2" changed',
        "catalogs/surface.jsonl: changed",
        'catalogs/surface.jsonl: task_id "S1-en-03" added',
        "spec/conditions.yaml: changed",
        "spec/conditions.yaml: conditions.conditions[SR-5-STATE-AWARE].refresh.k_per_refresh: 5 -> 4",
        "spec/schema/gates.schema.json: changed",
        "spec/schema/gates.schema.json: "
        "gates.schema.properties.criteria.items.properties.rationale.minLength: 1 -> 2",
    ]


def test_unparseable_file_is_drift(frozen) -> None:
    write(frozen, "spec/gates.yaml", "treatment: [\n")
    lines = _drift(frozen)
    assert lines[0] == "spec/gates.yaml: changed"
    assert lines[1].startswith("spec/gates.yaml: cannot be parsed now: spec/gates.yaml:2:1: not valid YAML")


def test_verify_message_names_roots_and_how_to_refreeze(frozen) -> None:
    edit(frozen, "spec/gates.yaml", "threshold: -0.02", "threshold: -0.05")
    message = verify_project(frozen).message()
    assert message.splitlines()[0].startswith(
        "spec/freeze.lock: drift: 1 file differs from the freeze (frozen root sha256:"
    )
    assert message.splitlines()[-1] == (
        'If the change is intended and no scored run has started, re-freeze: sr freeze --reason "<why>"'
    )


def test_hand_edited_lock_is_caught(frozen) -> None:
    data = json.loads(frozen.lock_file.read_text())
    data["snapshots"]["spec/gates.yaml"]["criteria"][0]["threshold"] = -0.05
    frozen.lock_file.write_text(json.dumps(data))
    with pytest.raises(SchemaRouterError, match="lock_digest does not match the lock's content"):
        verify_project(frozen)
    # Even with the digest recomputed, the lock disagrees with itself.
    data["lock_digest"] = content_digest(data).model_dump()
    frozen.lock_file.write_text(json.dumps(data))
    assert _drift(frozen) == [
        "spec/freeze.lock: corrupt: the snapshot of spec/gates.yaml does not match its digest"
    ]
    data["files"]["spec/gates.yaml"]["digest"] = "0" * 64
    data["lock_digest"] = content_digest(data).model_dump()
    frozen.lock_file.write_text(json.dumps(data))
    assert "spec/freeze.lock: corrupt: its root is not the root of its file list" in _drift(frozen)


def test_unreadable_lock_is_an_error(frozen) -> None:
    frozen.lock_file.write_text('{"lock_version": 99}')
    with pytest.raises(SchemaRouterError, match="lock_version 99 is not 2"):
        verify_project(frozen)
    frozen.lock_file.write_text("{not json")
    with pytest.raises(SchemaRouterError, match="cannot read the freeze lock"):
        verify_project(frozen)


def test_verify_without_lock_is_an_error(tmp_path) -> None:
    with pytest.raises(SchemaRouterError, match=r"spec/freeze.lock: not found; the specs are a draft"):
        verify_project(make_project(tmp_path))


def test_refreeze_keeps_history_and_unchanged_freeze_is_a_no_op(frozen) -> None:
    first = read_lock(frozen.lock_file)
    again = freeze_project(frozen, reason="nothing changed")
    assert not again.written and read_lock(frozen.lock_file) == first
    edit(frozen, "spec/gates.yaml", "interval: bootstrap", "interval: the bootstrap")
    result = freeze_project(frozen, reason="clarify the interval")
    assert result.written
    assert result.changes == [
        "spec/gates.yaml: changed",
        'spec/gates.yaml: gates.interval: "bootstrap 95% percentile '
        '(see experiment.yaml)" -> "the bootstrap 95% percentile (see experiment.yaml)"',
    ]
    lock = read_lock(frozen.lock_file)
    assert lock is not None and first is not None
    assert [h.reason for h in lock.history] == ["initial", "clarify the interval"]
    assert lock.history[0].root == first.root and lock.history[1].root == lock.root != first.root
    assert verify_project(frozen).clean


def test_freeze_refuses_invalid_specs_and_empty_reason(frozen) -> None:
    before = frozen.lock_file.read_text()
    edit(frozen, "spec/strata.yaml", "tasks_per_cell: 6", "tasks_per_cell: 7")
    with pytest.raises(SchemaRouterError, match="tasks_per_cell: 7 differs from the protocol's 6"):
        freeze_project(frozen, reason="try")
    with pytest.raises(SchemaRouterError, match="needs a reason"):
        freeze_project(frozen, reason="  ")
    assert frozen.lock_file.read_text() == before


def test_freeze_refuses_a_catalog_that_is_not_json(frozen) -> None:
    write(frozen, "catalogs/broken.json", '{"a": 1,,}')
    with pytest.raises(SchemaRouterError, match=r"catalogs/broken.json:1:9: not valid JSON"):
        freeze_project(frozen, reason="add broken")


def test_scoring_started_blocks_every_change(frozen) -> None:
    draft_free = compile_project(frozen, write_manifest=False)
    started = record_scoring_started(frozen, "run-1", compiled=draft_free)
    assert started.run_id == "run-1" and started.root == draft_free.build.freeze.root
    # Idempotent: the first scored run stays recorded.
    assert record_scoring_started(frozen, "run-2", compiled=draft_free) == started
    assert scoring_started(frozen) == started
    assert not freeze_project(frozen, reason="unchanged").written
    edit(
        frozen,
        "spec/state_contract.yaml",
        "  - name: task_incomplete",
        "  - name: task_incomplete_v2\n    type: {kind: boolean}\n    description: x\n"
        "  - name: task_incomplete",
    )
    edit(frozen, "spec/gates.yaml", "interval: bootstrap", "interval: the bootstrap")
    with pytest.raises(SchemaRouterError) as caught:
        freeze_project(frozen, reason="add a field")
    message = str(caught.value)
    assert "refusing to re-freeze: scoring started with run run-1" in message
    assert "The state contract changed:\n  spec/state_contract.yaml: changed\n" in message
    assert 'spec/state_contract.yaml: state_contract.allowed: field "task_incomplete_v2" added' in message
    assert "Other frozen files changed:\n  spec/gates.yaml: changed" in message


def test_scoring_started_after_any_change_is_refused_too(frozen) -> None:
    record_scoring_started(frozen, "run-1", compiled=compile_project(frozen, write_manifest=False))
    write(frozen, "catalogs/catalog_2.json", CATALOG.replace('"x": 2', '"x": 3'))
    with pytest.raises(SchemaRouterError, match="refusing to re-freeze"):
        freeze_project(frozen, reason="regenerate the catalog")
    assert "Scoring started (run run-1)" in verify_project(frozen).message()


def test_scoring_refuses_drafts_and_stale_compiles(tmp_path, frozen) -> None:
    draft_paths = make_project(tmp_path / "draft")
    draft = compile_project(draft_paths, write_manifest=False)
    with pytest.raises(SchemaRouterError, match="a draft"):
        record_scoring_started(draft_paths, "run-1", compiled=draft)
    compiled = compile_project(frozen, write_manifest=False)
    edit(frozen, "spec/gates.yaml", "interval: bootstrap", "interval: the bootstrap")
    freeze_project(frozen, reason="clarify")
    with pytest.raises(SchemaRouterError, match="recompile"):
        record_scoring_started(frozen, "run-1", compiled=compiled)


def _git(root, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_git_commit_dirty_flag_and_uncommitted_note(tmp_path) -> None:
    paths = make_project(tmp_path)
    _git(paths.root, "init", "-q")
    _git(paths.root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "add", "spec")
    _git(paths.root, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "specs")
    write(paths, "catalogs/catalog_2.json", CATALOG)
    result = freeze_project(paths, reason="initial")
    lock = result.lock
    assert lock.git.commit is not None and len(lock.git.commit) == 40
    assert lock.git.dirty is True
    assert result.uncommitted == ["catalogs/catalog_2.json"]
    assert "frozen files not yet committed" in result.message()
