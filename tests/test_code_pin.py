"""The freeze pins the code it runs (issue #24, item 2): implementation digests and behavioural canaries
per component, annexed to the lock; ``sr verify`` names the component whose behaviour moved, a refactor
passes with a note, scoring refuses, and a tampered or truncated lock is one line with nothing written.

The successor here is a frozen copy of the 0.15 draft (typed_state) in a temp project. "The code
changed" is modelled on both of its faces: the behaviour (the installed strategy's method patched to
ignore the state) and the source the digest reads (a copy of the source tree with that edit made).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runtime.core.errors import SchemaRouterError
from runtime.retrieval.strategies.typed_state import TypedStateStrategy
from runtime.spec_model.lock import content_digest
from schemarouter.application.code_digest import SourceTree, installed_source_root
from schemarouter.application.code_pin import require_code_unchanged
from schemarouter.application.compiled import compiled_without_writing
from schemarouter.application.verify import verify_experiments
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

REPO = Path(__file__).resolve().parents[1]
ROOT_OF_RECORD = "9a0b61552a9070cdb972958dacde6a6cdfc8cf37af25205a2561c767610d3580"
STRATEGY_FILE = "runtime/retrieval/strategies/typed_state.py"
runner = CliRunner()


def sr(root: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--project-dir", str(root), *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def frozen_successor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """0.14 as recorded and 0.15 frozen (its code pinned by sr freeze), with the dev surface."""
    root = tmp_path_factory.mktemp("pin") / "project"
    root.mkdir()
    shutil.copyfile(REPO / "schemarouter.yaml", root / "schemarouter.yaml")
    for rel in (
        "spec/0.14",
        "spec/0.15",
        "spec/_surfaces",
        "catalogs/0.14",
        "catalogs/0.15",
        "catalogs/_surfaces",
    ):
        shutil.copytree(REPO / rel, root / rel, ignore=shutil.ignore_patterns(".*", "freeze.lock"))
    shutil.copyfile(REPO / "spec/0.14/freeze.lock", root / "spec/0.14/freeze.lock")
    code, output = sr(
        root,
        "freeze",
        "--experiment",
        "0.15",
        "--reason",
        "test: typed_state frozen",
        "--accept-infeasible",
        "test: G2 is unreachable under this protocol (sr preflight)",
    )
    assert code == 0, output
    assert "pinned the code of" in output
    return root


def _source_copy(tmp_path: Path, old: str, new: str) -> SourceTree:
    """A copy of the running code's source tree with one edit in the strategy's module."""
    src = installed_source_root()
    out = tmp_path / "src"
    for top in ("schemarouter", "compiler", "runtime"):
        shutil.copytree(src / top, out / top, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    target = out / STRATEGY_FILE
    text = target.read_text(encoding="utf-8")
    assert old in text
    target.write_text(text.replace(old, new), encoding="utf-8")
    return SourceTree(out)


def _ignore_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        TypedStateStrategy,
        "rank_with_state",
        lambda self, query, state_text, depth: self.rank_query(query, depth),
    )


IGNORING = (
    "        state = TypedState.parse(state_text)\n        if state is None:",
    "        state = None\n        if state is None:",
)


def test_the_record_of_0_14_verifies_at_its_recorded_root() -> None:
    outcome = verify_experiments(
        ProjectPaths.at(REPO, experiment="0.14"), all_experiments=False, history=False
    )
    assert outcome.ok, outcome.errors
    assert ROOT_OF_RECORD in outcome.lines[0]
    # The code moves on after the pin: either every digest still matches, or the canaries were rerun (or
    # their clean rerun on this exact code remembered) and every one matched. Never a digest count alone.
    code_line = next(line for line in outcome.lines if "freeze.lock: code:" in line)
    assert (
        "28 component implementations match the pinned digests" in code_line
        or "every canary matches the pinned record" in code_line
        or "their canaries matched when last rerun on this exact code" in code_line
    ), outcome.lines
    lock = json.loads((REPO / "spec/0.14/freeze.lock").read_text(encoding="utf-8"))
    labels = [f"{c['kind']} {c['name']}" for c in lock["code"][0]["components"]]
    assert labels[:2] == ["retrieval strategy text_concat", "exposure policy full_catalog"]
    assert {"state guard guard", "simulator expression language expressions", "agent reference"} <= set(
        labels
    )
    assert all(c["implementation"]["algorithm"] == "sha256" for c in lock["code"][0]["components"])


def test_a_strategy_that_ignores_the_state_fails_verify_naming_it(
    frozen_successor: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = ProjectPaths.at(frozen_successor, experiment="0.15")
    before = _tree(frozen_successor)
    _ignore_state(monkeypatch)
    edited = _source_copy(tmp_path, *IGNORING)
    outcome = verify_experiments(paths, all_experiments=False, history=False, source=edited)
    assert not outcome.ok
    first = outcome.errors[0]
    assert first.startswith("retrieval strategy typed_state: ") and first.endswith("canary rankings differ")
    differ, total = (int(w) for w in first.split(": ")[1].split()[:3:2])
    assert 0 < differ < total
    # The explicit flag finds it too, with the untouched source tree (the digests match).
    flagged = verify_experiments(paths, all_experiments=False, history=False, canaries=True)
    assert not flagged.ok and flagged.errors[0] == first
    with pytest.raises(SchemaRouterError, match=r"^refusing to score: retrieval strategy typed_state: "):
        require_code_unchanged(paths, compiled_without_writing(paths), source=edited)
    assert _tree(frozen_successor) == before  # nothing written
    monkeypatch.undo()  # restored: the same behaviour as pinned
    restored = verify_experiments(paths, all_experiments=False, history=False, canaries=True)
    assert restored.ok, restored.errors
    assert restored.lines[-1].endswith("code: every canary matches the pinned record")


def test_a_pure_refactor_passes_with_a_note(frozen_successor: Path, tmp_path: Path) -> None:
    paths = ProjectPaths.at(frozen_successor, experiment="0.15")
    renamed = _source_copy(tmp_path, "_typed_clauses", "_clauses_of_the_state")
    outcome = verify_experiments(paths, all_experiments=False, history=False, source=renamed)
    assert outcome.ok, outcome.errors
    notes = [line for line in outcome.lines if "implementation digest changed" in line]
    assert notes and notes[0].startswith("retrieval strategy typed_state: implementation digest changed")
    assert "canary rankings unchanged" in notes[0]
    # The clean rerun is remembered for this exact code: the next verify does not rerun the canaries.
    again = verify_experiments(paths, all_experiments=False, history=False, source=renamed)
    assert again.ok and any("matched when last rerun on this exact code" in line for line in again.lines)
    # A memo that names other code (or is garbage) is not trusted: the canaries run again.
    memo = frozen_successor / "build" / "0.15" / "code_check.json"
    memo.write_text('{"clean_rerun": "sha256:forged"}\n', encoding="utf-8")
    rerun = verify_experiments(paths, all_experiments=False, history=False, source=renamed)
    assert rerun.ok and rerun.lines[-1].endswith("code: every canary matches the pinned record")


def test_a_refactor_of_a_shared_module_is_noted_for_each_component_it_reaches(
    frozen_successor: Path, tmp_path: Path
) -> None:
    paths = ProjectPaths.at(frozen_successor, experiment="0.15")
    tree = _source_copy(tmp_path, "_typed_clauses", "_typed_clauses")
    (tree.root / "runtime/core/errors.py").write_text(
        (tree.root / "runtime/core/errors.py").read_text(encoding="utf-8") + "\n# a comment\n",
        encoding="utf-8",
    )
    outcome = verify_experiments(paths, all_experiments=False, history=False, source=tree)
    assert outcome.ok, outcome.errors
    assert sum("implementation digest changed" in line for line in outcome.lines) > 5


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        check=True,
        capture_output=True,
    )


def test_an_edited_or_truncated_code_record_is_one_line_and_nothing_is_written(
    frozen_successor: Path, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    shutil.copytree(frozen_successor, root)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "frozen")
    lock = root / "spec/0.15/freeze.lock"
    good = lock.read_text(encoding="utf-8")

    data = json.loads(good)
    first = data["code"][0]["components"][0]
    key = sorted(first["canary"])[0]
    first["canary"][key] = "0" * 16  # a forged canary hash
    lock.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    before = _tree(root)
    code, output = sr(root, "verify", "--experiment", "0.15")
    assert code == 1 and output.strip().count("\n") == 0
    assert "lock_digest does not match the lock's content" in output
    assert _tree(root) == before

    data["lock_digest"] = content_digest(data).model_dump()  # forged and resealed: HEAD still has the truth
    lock.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    code, output = sr(root, "verify", "--experiment", "0.15")
    assert code == 1 and "against HEAD: code: an earlier entry removed or rewritten" in output

    del data["code"]  # the record removed
    data["lock_digest"] = content_digest(data).model_dump()
    lock.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    code, output = sr(root, "verify", "--experiment", "0.15")
    assert code == 1 and "against HEAD: code: an earlier entry removed or rewritten" in output

    lock.write_text(good[: len(good) // 2], encoding="utf-8")  # truncated
    before = _tree(root)
    for command in (
        ("verify", "--experiment", "0.15"),
        ("lock", "pin-code", "--experiment", "0.15", "--reason", "x"),
    ):
        code, output = sr(root, *command)
        assert code == 1 and output.strip().count("\n") == 0, output
        assert output.startswith("spec/0.15/freeze.lock:") and "cannot read the freeze lock" in output
        assert _tree(root) == before


def test_pin_code_refuses_a_draft_and_never_rewrites_a_record(frozen_successor: Path, tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(frozen_successor, root)
    before = _tree(root)
    code, output = sr(root, "lock", "pin-code", "--experiment", "0.15", "--reason", "again")
    assert code == 0 and "already pinned" in output and "never rewritten" in output
    assert _tree(root) == before
    (root / "spec/0.15/freeze.lock").unlink()
    before = _tree(root)
    code, output = sr(root, "lock", "pin-code", "--experiment", "0.15", "--reason", "a draft")
    assert code == 1 and output.strip().count("\n") == 0 and "not found" in output
    assert _tree(root) == before


def test_a_lock_without_a_code_record_keeps_its_bytes(tmp_path: Path) -> None:
    """The key is omitted while absent: a lock written before it existed round-trips byte for byte."""
    from runtime.spec_model.lock import lock_json, read_lock

    data = json.loads((REPO / "spec/0.14/freeze.lock").read_text(encoding="utf-8"))
    del data["code"]
    data["lock_digest"] = content_digest(data).model_dump()
    path = tmp_path / "freeze.lock"
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, indent=2) + "\n"
    path.write_text(text, encoding="utf-8")
    lock = read_lock(path)
    assert lock is not None and lock.code is None
    assert lock_json(lock) == text and "code" not in json.loads(lock_json(lock))
