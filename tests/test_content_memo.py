"""The per-process memo of parsed files (runtime/core/content_memo.py): the same bytes give the same
parsed object, changed bytes are parsed again, a file that fails is never remembered, and it is bounded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from runtime.catalog.io import load_catalog_with_digest
from runtime.core.content_memo import ContentMemo
from runtime.core.errors import SchemaRouterError
from runtime.spec_model.lock import read_lock
from runtime.surface.io import load_surface_file
from schemarouter.application.code_digest import import_statements

REPO = Path(__file__).resolve().parents[1]


def test_the_memo_keeps_at_most_maxsize_and_drops_the_least_recently_used() -> None:
    memo: ContentMemo[bytes, str] = ContentMemo(maxsize=2)
    built: list[bytes] = []

    def build(key: bytes) -> str:
        built.append(key)
        return key.decode()

    for key in (b"a", b"b", b"a", b"c", b"a", b"b"):
        assert memo.get(key, lambda k=key: build(k)) == key.decode()  # type: ignore[misc]
    assert built == [b"a", b"b", b"c", b"b"]  # "b" was the least recently used when "c" came in
    assert len(memo) == 2
    with pytest.raises(ValueError):
        ContentMemo(maxsize=0)


def test_a_surface_file_is_parsed_once_per_bytes_and_again_when_they_change(tmp_path: Path) -> None:
    path = tmp_path / "surface.jsonl"
    shutil.copyfile(REPO / "catalogs/0.14/surface.jsonl", path)
    first, second = load_surface_file(path), load_surface_file(path)
    assert first == second and first is not second  # each caller gets its own list ...
    assert all(a is b for a, b in zip(first, second, strict=True))  # ... of the same frozen tasks
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:3]), encoding="utf-8")  # the same name, other bytes
    assert [t.task_id for t in load_surface_file(path)] == [t.task_id for t in first[:3]]


def test_a_file_that_fails_to_parse_fails_again_on_every_read(tmp_path: Path) -> None:
    path = tmp_path / "surface.jsonl"
    path.write_text('{"task_id": 1}\n', encoding="utf-8")
    for _ in range(2):
        with pytest.raises(SchemaRouterError, match=r"surface\.jsonl:1: not a valid task"):
            load_surface_file(path)


def test_a_catalog_and_a_lock_read_twice_are_the_same_objects_and_an_edit_is_seen(tmp_path: Path) -> None:
    catalogs = tmp_path / "catalogs"
    catalogs.mkdir()
    shutil.copyfile(REPO / "catalogs/0.14/catalog_100.json", catalogs / "catalog_100.json")
    (a, digest_a), (b, digest_b) = (load_catalog_with_digest(catalogs, 100) for _ in range(2))
    assert a is b and digest_a == digest_b
    text = (catalogs / "catalog_100.json").read_text(encoding="utf-8")
    (catalogs / "catalog_100.json").write_text(text.replace('"size": 100', '"size": 99'), encoding="utf-8")
    with pytest.raises(SchemaRouterError, match="declares size 99"):
        load_catalog_with_digest(catalogs, 100)

    lock = tmp_path / "freeze.lock"
    shutil.copyfile(REPO / "spec/0.14/freeze.lock", lock)
    assert read_lock(lock) is read_lock(lock)
    lock.write_bytes(lock.read_bytes().replace(b'"reason": "', b'"reason": "edited ', 1))
    with pytest.raises(SchemaRouterError, match="lock_digest does not match"):
        read_lock(lock)


def test_import_statements_follow_the_file_s_bytes(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import runtime.core\nif True:\n    from . import x as y\n", encoding="utf-8")
    assert import_statements(module) == ((-1, None, ("runtime.core",)), (1, None, ("x",)))
    module.write_text("def f():\n    from runtime import jcs\n", encoding="utf-8")
    assert import_statements(module) == ((0, "runtime", ("jcs",)),)
    module.write_text("def (:\n", encoding="utf-8")
    for _ in range(2):
        with pytest.raises(SyntaxError):
            import_statements(module)


def test_a_fingerprint_s_items_are_its_data_s_items_and_follow_its_bytes(tmp_path: Path) -> None:
    from compiler.canonical import fingerprint, fingerprint_items, item_digests

    path = tmp_path / "catalog_100.json"
    shutil.copyfile(REPO / "catalogs/0.14/catalog_100.json", path)
    taken = fingerprint(path, "catalogs/catalog_100.json")
    assert fingerprint_items(taken) == item_digests(taken.data)
    assert fingerprint_items(taken) is fingerprint_items(taken)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"deprecated": false', '"deprecated": true', 1), encoding="utf-8")
    moved = fingerprint_items(fingerprint(path, "catalogs/catalog_100.json"))
    assert moved is not None and moved == item_digests(fingerprint(path, "catalogs/catalog_100.json").data)
    assert moved != fingerprint_items(taken)
