"""The code pin's import reader (schemarouter/application/code_digest.py) finds every import statement,
however deep, by walking statements only: the same imports as ``ast.walk`` over every node."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from schemarouter.application.code_digest import SourceTree, _statements

REPO = Path(__file__).resolve().parents[1]

NESTED = textwrap.dedent(
    """
    import a
    def f():
        import b
        class C:
            from c import d
            def g(self):
                if x:
                    import e
                elif y:
                    import f1
                else:
                    import f2
    try:
        import g
    except ImportError:
        import h
    else:
        import i
    finally:
        import j
    try:
        pass
    except* ValueError:
        import h2
    for _ in ():
        import k
    else:
        import l
    while False:
        import m
    else:
        import n
    with ctx():
        import o
    async def h():
        async with ctx():
            import p
        async for _ in it():
            import q
    match v:
        case 1:
            import r
        case _:
            from . import s
    """
)


def imports_by_walk(tree: ast.Module) -> list[tuple[int, int]]:
    return sorted(
        (n.lineno, n.col_offset) for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
    )


def imports_by_statements(tree: ast.Module) -> list[tuple[int, int]]:
    found = (n for n in _statements(tree.body) if isinstance(n, ast.Import | ast.ImportFrom))
    return sorted((n.lineno, n.col_offset) for n in found)


def test_every_nested_import_is_found() -> None:
    tree = ast.parse(NESTED)
    assert len(imports_by_walk(tree)) == 20
    assert imports_by_statements(tree) == imports_by_walk(tree)


def test_the_same_imports_as_a_full_walk_on_every_project_file() -> None:
    files = [
        p
        for package in ("runtime", "compiler", "schemarouter")
        for p in sorted((REPO / package).rglob("*.py"))
    ]
    assert len(files) > 300
    for path in files:
        tree = ast.parse(path.read_bytes(), filename=str(path))
        assert imports_by_statements(tree) == imports_by_walk(tree), path


def test_a_module_file_is_looked_up_once_per_tree() -> None:
    tree = SourceTree(REPO)
    first = tree.file_of("runtime.engine.episode")
    assert first == REPO / "runtime" / "engine" / "episode.py"
    assert tree.file_of("runtime.engine.episode") is first
    assert tree.file_of("runtime.engine") == REPO / "runtime" / "engine" / "__init__.py"
    assert tree.file_of("runtime.no_such_module") is None
