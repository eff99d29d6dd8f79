"""Helpers for the hostile-input tests: a temporary project, edits that break it, and the CLI in-process.

Each hostile input must give exit code 1 or 2, name the file it concerns as ``file:line:col:`` where the
input is a file, never print a traceback, and write nothing outside the directory it may write to.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from compiler.spec_files import CORE_SPEC_NAMES
from schemarouter.cli.app import app

REPO = Path(__file__).resolve().parents[1]
CASES = Path(__file__).resolve().parent / "cases" / "hostile"
SUMMARY_ENDINGS = ("nothing was changed.",)


def load_cases(name: str) -> list[dict[str, Any]]:
    """The entries of ``tests/cases/hostile/<name>.yaml`` (test data, read with PyYAML)."""
    cases = yaml.safe_load((CASES / f"{name}.yaml").read_text(encoding="utf-8"))
    assert isinstance(cases, list) and cases, name
    ids = [case["id"] for case in cases]
    assert len(ids) == len(set(ids)), f"duplicate case ids in {name}.yaml"
    return cases


def use_compile_cache(monkeypatch: Any) -> None:
    """Let the run commands reuse one compilation of the (unchanged) frozen specs: compiling is not what
    the hostile run-directory and argument inputs test, and it costs a second or more each time."""
    import hashlib

    from schemarouter.application import run, score

    real = run.compile_project

    def compile_once(paths: Any, **kwargs: Any) -> Any:
        kwargs.pop("progress", None)  # the CLI's progress callback: not part of what is compiled
        key = (hashlib.sha256(paths.lock_file.read_bytes()).hexdigest(), tuple(sorted(kwargs.items())))
        if key not in _COMPILED:
            _COMPILED[key] = real(paths, **{**kwargs, "write_manifest": False})
        return _COMPILED[key]

    monkeypatch.setattr(run, "compile_project", compile_once)
    monkeypatch.setattr(score, "compile_project", compile_once)


_COMPILED: dict[Any, Any] = {}


def make_project(root: Path, kind: str = "core") -> Path:
    """``core``: the six core spec files and schemas (no lock); ``full``: spec/ and catalogs/ as frozen."""
    if kind == "full":
        shutil.copytree(REPO / "spec" / "0.14", root / "spec")
        shutil.copytree(REPO / "catalogs" / "0.14", root / "catalogs")
        return root
    (root / "spec" / "schema").mkdir(parents=True)
    for name in CORE_SPEC_NAMES:
        shutil.copy(REPO / "spec" / "0.14" / f"{name}.yaml", root / "spec" / f"{name}.yaml")
        schema = f"{name}.schema.json"
        shutil.copy(REPO / "spec" / "0.14" / "schema" / schema, root / "spec" / "schema" / schema)
    return root


def make_single_spec_project(root: Path, name: str) -> Path:
    """A project holding one spec file and its schema: the other core files are reported missing, and
    validation is quick (the hostile variants concern the one file)."""
    (root / "spec" / "schema").mkdir(parents=True)
    shutil.copy(REPO / "spec" / "0.14" / f"{name}.yaml", root / "spec" / f"{name}.yaml")
    schema = f"{name}.schema.json"
    shutil.copy(REPO / "spec" / "0.14" / "schema" / schema, root / "spec" / "schema" / schema)
    return root


def apply_edit(root: Path, edit: dict[str, Any]) -> None:
    """One edit of a project file: ``append``, ``replace`` (old/new, first occurrence), ``write`` or
    ``write_hex`` (raw bytes)."""
    path = root / edit["file"]
    path.parent.mkdir(parents=True, exist_ok=True)
    if "write_hex" in edit:
        path.write_bytes(bytes.fromhex(edit["write_hex"]))
    elif "write" in edit:
        path.write_text(edit["write"], encoding="utf-8", errors="surrogatepass")
    elif "append" in edit:
        with open(path, "a", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(edit["append"])
    else:
        text = path.read_text(encoding="utf-8")
        old, new = edit["replace"]["old"], edit["replace"]["new"]
        assert old in text, f"{old!r} not in {edit['file']}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8", errors="surrogatepass")


def tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and modification time, to see what a command wrote."""
    return {
        p.relative_to(root).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


@dataclass
class Outcome:
    exit_code: int
    lines: list[str]
    output: str
    written: list[str]


def expand(text: str, repeat: dict[str, list[Any]] | None) -> str:
    """``text`` with each token of ``repeat`` replaced by its text repeated (long inputs stay short here)."""
    for token, (piece, times) in (repeat or {}).items():
        text = text.replace(token, piece * times)
    return text


def run_cli(
    root: Path, args: list[str], *, may_write: tuple[str, ...] = (), project: Path | None = None
) -> Outcome:
    """``sr --project-dir PROJECT args...`` in-process (PROJECT defaults to ``root``); what it printed and
    which files under ``root`` it changed."""
    before = tree(root)
    result = CliRunner().invoke(app, ["--project-dir", str(project or root), *args])
    after = tree(root)
    written = sorted(
        path
        for path in set(after) | set(before)
        if before.get(path) != after.get(path) and not path.startswith(may_write)
    )
    unexpected = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not unexpected, f"{args}: uncaught {type(result.exception).__name__}: {result.exception}"
    output = result.output
    return Outcome(result.exit_code, [line for line in output.splitlines() if line.strip()], output, written)


def assert_hostile_outcome(outcome: Outcome, *, file: str | None) -> None:
    """Exit 1 or 2, no traceback, nothing written, and (for a file) every problem line at file:line:col."""
    assert outcome.exit_code in (1, 2), outcome.output
    assert "Traceback" not in outcome.output, outcome.output
    assert outcome.written == [], f"wrote {outcome.written}"
    assert outcome.lines, "no message"
    if file is not None:
        problems = [line for line in outcome.lines if not line.endswith(SUMMARY_ENDINGS)]
        located = [line for line in problems if _located(line, file)]
        assert located, f"no line starting {file}:line:col: in:\n{outcome.output}"


def _located(line: str, file: str) -> bool:
    if not line.startswith(f"{file}:"):
        return False
    parts = line[len(file) + 1 :].split(":", 2)
    return len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit()
