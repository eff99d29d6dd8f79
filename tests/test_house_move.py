"""The house codemod (scripts/house/move.py) and the module-move table sr verify reads."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from spec_support import REPO


def _load(name: str, path: Path):
    """A module by file: the codemod is a script, and the table's import name is the one it changes."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


move = _load("house_move", REPO / "scripts" / "house" / "move.py")
module_moves = _load("house_module_moves", REPO / "runtime" / "spec_model" / "module_moves.py")


def _rewrite(text: str) -> str:
    report = move.Report()
    once = move.rewrite_text(text, "x.py", report)
    assert move.rewrite_text(once, "x.py", report) == once, "a second run must change nothing"
    assert report.problems == []
    return once


def test_dotted_names_and_imports_are_rewritten_once() -> None:
    assert _rewrite("from schemarouter.runtime.policy.gate import Allow\n") == (
        "from runtime.authorization.execution_gate import Allow\n"
    )
    assert _rewrite("import schemarouter.compiler.verify\n") == "import compiler.verify\n"
    assert (
        _rewrite("from schemarouter import limits, safe_json\n")
        == "from runtime.core import limits, safe_json\n"
    )
    assert _rewrite("from schemarouter import __version__, errors\n") == (
        "from runtime.core import errors\nfrom schemarouter import __version__\n"
    )
    assert _rewrite("from schemarouter.runtime.scoring import gate\n") == (
        "from runtime.scoring import success_gate as gate\n"
    )
    assert _rewrite("from schemarouter.application import reference as ref\n") == (
        "from schemarouter.application import reference_run as ref\n"
    )


def test_paths_in_prose_follow_the_files() -> None:
    text = (
        "see `runtime/policy/gate.py`, `scoring/gate.py` and runtime/policy/README.md; not mypolicy/gate.py"
    )
    assert _rewrite(text) == (
        "see `runtime/authorization/execution_gate.py`, `scoring/success_gate.py` and "
        "runtime/authorization/README.md; not mypolicy/gate.py"
    )


def test_frozen_files_and_the_codemod_itself_are_never_rewritten() -> None:
    for path in (
        "spec/0.14/freeze.lock",
        "spec/0.17/conditions.yaml",
        "catalogs/0.16/catalog_100.json",
        "golden/0.14/gate.json",
        "scripts/house/move.py",
        "runtime/spec_model/module_moves.py",
    ):
        assert not move.rewritable(path), path
    for path in (
        "Makefile",
        "pyproject.toml",
        "runtime/README.md",
        "tests/test_x.py",
        "runtime/x.schema.json",
    ):
        assert move.rewritable(path), path


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_a_run_moves_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "runtime" / "policy").mkdir(parents=True)
    (tmp_path / "runtime" / "spec_model").mkdir()
    (tmp_path / "runtime" / "policy" / "gate.py").write_text('"""g"""\n', encoding="utf-8")
    (tmp_path / "runtime" / "policy" / "integrity.py").write_text(
        "from schemarouter.runtime.policy.gate import x\n", encoding="utf-8"
    )
    (tmp_path / "runtime" / "spec_model" / "module_moves.py").write_bytes(
        (REPO / "runtime" / "spec_model" / "module_moves.py").read_bytes()
    )
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    first = move.run(tmp_path)
    assert first.problems == []
    assert "runtime/policy/gate.py -> runtime/authorization/execution_gate.py" in first.moved
    assert (tmp_path / "runtime" / "authorization" / "integrity.py").read_text(encoding="utf-8") == (
        "from runtime.authorization.execution_gate import x\n"
    )
    table = (tmp_path / "runtime" / "spec_model" / "module_moves.py").read_text(encoding="utf-8")
    assert '"schemarouter.runtime.policy": "runtime.authorization",' in table
    second = move.run(tmp_path)
    assert (second.moved, second.rewritten, second.problems) == ([], [], [])


def test_the_move_table_maps_recorded_names_by_longest_prefix(monkeypatch) -> None:
    monkeypatch.setattr(
        module_moves,
        "MOVES",
        {"schemarouter.runtime": "runtime", "schemarouter.runtime.policy": "runtime.authorization"},
    )
    assert module_moves.current_module("schemarouter.runtime.policy.gate") == "runtime.authorization.gate"
    assert module_moves.current_module("schemarouter.runtime.state.guard") == "runtime.state.guard"
    assert module_moves.current_module("schemarouter.runtimes.x") == "schemarouter.runtimes.x"
    assert module_moves.current_module("sr_plugin.strategy") == "sr_plugin.strategy"


def test_the_makefile_keeps_every_target_after_the_typecheck_rewrite() -> None:
    """The typecheck recipe is replaced, and nothing after it is lost (a first version of the rule
    swallowed the rest of the Makefile, llm-test included, which CI calls)."""
    old = (
        "lint: x\n\truff\n\n# mypy cannot follow the package-dir mapping of an editable install, so\n"
        "# it checks symlinks.\ntypecheck: $(STAMP)\n\trm -rf build/typecheck\n\tcd build && mypy\n\n"
        "verify: $(STAMP)\n\t$(SR) verify\n\nllm-test: x\n\tpytest -m llm\n"
    )
    new = move.rewrite_makefile(old)
    assert "symlinks" not in new and "mypy -p schemarouter -p compiler -p runtime" in new
    assert new.endswith("verify: $(STAMP)\n\t$(SR) verify\n\nllm-test: x\n\tpytest -m llm\n")
    assert move.rewrite_makefile(new) == new


def test_the_committed_makefile_has_the_targets_ci_calls() -> None:
    text = (REPO / "Makefile").read_text(encoding="utf-8")
    for target in ("setup", "run", "test", "check", "lint", "typecheck", "verify", "golden", "llm-test"):
        assert f"\n{target}:" in text, target
