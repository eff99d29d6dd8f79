"""The code pin's import statements kept between processes (``code_digest.ImportsCache``,
build/code_imports.json): a speed-up that gives every digest exactly, ignores a bad file, and cannot
make a changed implementation look pinned."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from schemarouter.application import code_digest
from schemarouter.application.code_digest import ImportsCache, SourceTree, _parse_imports

REPO = Path(__file__).resolve().parents[1]
COMPONENTS = (
    "runtime.retrieval.strategies.text_concat",
    "runtime.engine.episode",
    "runtime.engine.metrics.builtin",
    "runtime.scoring.statistics.builtin",
)


def _digests(tree: SourceTree) -> dict[str, object]:
    return {m: tree.implementation_digest(m) for m in COMPONENTS}


def _forget() -> None:
    """A new process: the per-process memo, which answers before the cache, is empty."""
    code_digest._IMPORTS = code_digest.ContentMemo(maxsize=1024)


@pytest.fixture(autouse=True)
def _fresh_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-process memo answers before the cache; each test starts without it."""
    monkeypatch.setattr(code_digest, "_IMPORTS", code_digest.ContentMemo(maxsize=1024))


def test_a_cache_gives_the_parsed_digests_and_a_second_process_parses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed = _digests(SourceTree(REPO))
    _forget()
    path = tmp_path / "build" / "code_imports.json"
    first = SourceTree(REPO, cache=ImportsCache(path))
    assert _digests(first) == parsed
    assert first.cache is not None
    first.cache.save()
    stored = json.loads(path.read_text())
    assert stored["version"] == 1 and len(stored["imports"]) > 50

    _forget()
    monkeypatch.setattr(code_digest, "_parse_imports", _refuse)  # a new process: every file is known
    assert _digests(SourceTree(REPO, cache=ImportsCache(path))) == parsed


def _refuse(raw: bytes, filename: str) -> object:
    raise AssertionError(f"{filename} was parsed although the cache holds it")


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b'{"version": 2, "imports": {}}',
        b'{"version": 1, "imports": {"abc": []}}',  # not a sha256
        b'{"version": 1, "imports": {"' + b"0" * 64 + b'": [[0, 3, ["x"]]]}}',  # a module that is no string
        b'{"version": 1, "imports": {"' + b"0" * 64 + b'": [[true, null, ["x"]]]}}',  # a bool level
        b"[" * 5000 + b"]" * 5000,
    ],
)
def test_a_bad_cache_file_is_ignored_and_rewritten(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "code_imports.json"
    path.write_bytes(content)
    expected = _digests(SourceTree(REPO))
    _forget()
    tree = SourceTree(REPO, cache=ImportsCache(path))
    assert _digests(tree) == expected
    assert tree.cache is not None
    tree.cache.save()
    assert json.loads(path.read_text())["version"] == 1


def test_an_oversized_cache_file_is_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "code_imports.json"
    path.write_text(json.dumps({"version": 1, "imports": {}}))
    monkeypatch.setattr(code_digest, "_CACHE_MAX_BYTES", 10)
    assert code_digest._read_cache(path) == {}


def test_a_tampered_entry_changes_the_digest_and_an_edited_file_is_parsed_again(tmp_path: Path) -> None:
    """What the pin guards against: an entry that hides an import changes the closure, so the digest
    is no longer the pinned one; an edited file has another sha256, so no old entry serves it."""
    source = tmp_path / "src"
    for package in ("schemarouter", "compiler", "runtime"):
        shutil.copytree(REPO / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    component = "runtime.retrieval.strategies.text_concat"
    pinned = SourceTree(source).implementation_digest(component)
    _forget()

    path = tmp_path / "code_imports.json"
    cache = ImportsCache(path)
    assert SourceTree(source, cache=cache).implementation_digest(component) == pinned
    cache.save()
    stored = json.loads(path.read_text())
    own = (source / "runtime/retrieval/strategies/text_concat.py").read_bytes()
    stored["imports"][hashlib.sha256(own).hexdigest()] = []  # "it imports nothing"
    path.write_text(json.dumps(stored))
    _forget()
    assert SourceTree(source, cache=ImportsCache(path)).implementation_digest(component) != pinned

    edited = source / "runtime/retrieval/strategies/text_concat.py"
    edited.write_bytes(own + b"\nimport runtime.core.jcs\n")
    _forget()
    tree = SourceTree(source, cache=ImportsCache(path))
    statements = tree._file_imports(edited, "runtime.retrieval.strategies")
    assert "runtime.core.jcs" in statements  # parsed from the new bytes, not the tampered entry
    assert _parse_imports(edited.read_bytes(), str(edited))[-1] == (-1, None, ("runtime.core.jcs",))


def test_a_cache_that_cannot_be_written_is_left_alone(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("x")
    tree = SourceTree(REPO, cache=ImportsCache(blocked / "build" / "code_imports.json"))
    _digests(tree)
    assert tree.cache is not None
    tree.cache.save()  # its parent is a file: no error, nothing written
    assert blocked.read_text() == "x"


def test_a_read_only_build_folder_raises_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """write_text_atomic reports a read-only file system as SchemaRouterError ("cannot write"): neither
    this cache nor the canary memo beside it may turn that into a failed command."""
    from runtime.core import atomic_write
    from runtime.core.errors import SchemaRouterError
    from schemarouter.application import code_pin
    from schemarouter.project import ProjectPaths

    def read_only(path: Path, text: str) -> None:
        raise SchemaRouterError(f"{path}: cannot write (Read-only file system)")

    monkeypatch.setattr(atomic_write, "write_text_atomic", read_only)
    _forget()
    tree = SourceTree(REPO, cache=ImportsCache(tmp_path / "build" / "code_imports.json"))
    _digests(tree)
    assert tree.cache is not None
    tree.cache.save()
    project = tmp_path / "project"
    project.mkdir()
    shutil.copyfile(REPO / "schemarouter.yaml", project / "schemarouter.yaml")
    shutil.copytree(REPO / "spec" / "0.14", project / "spec" / "0.14")
    code_pin._remember_check(ProjectPaths.at(project), "sha256:" + "0" * 64)
    assert not (project / "build").exists() or not list((project / "build").rglob("*.json"))
    assert not (tmp_path / "build" / "code_imports.json").exists()
