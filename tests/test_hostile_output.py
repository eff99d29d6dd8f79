"""Hostile output paths and experiment creation (issue 28, part 1): the cases of
tests/cases/hostile/output.yaml, and a generated suite of every writing option of the CLI against every
kind of target the output guard (schemarouter/output_guard.py) refuses.

Each case and variant: exit code 1 (2 for usage), one line, no traceback, nothing written outside what
it may write. After each case the frozen folders are byte-identical (sha256 of every file) and
`sr verify --all` passes. The writing options are found by name in the CLI itself, so a new one that is
not held to the guard here fails `test_every_writing_option_is_held_to_the_guard`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer
from hostile_support import REPO, load_cases, run_cli

from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

FIXTURES = REPO / "tests" / "fixtures"
CASES = load_cases("output")
FROZEN = (
    "spec/0.14", "spec/0.15", "spec/_surfaces", "catalogs/0.14", "catalogs/0.15", "catalogs/_surfaces",
    "golden/0.14", "schemarouter.yaml",
)  # fmt: skip


def _digests(root: Path) -> dict[str, str]:
    """sha256 of every file of the frozen folders (and the project file)."""
    out = {}
    for top in FROZEN:
        base = root / top
        for path in sorted([base] if base.is_file() else base.rglob("*")):
            if path.is_file() and not path.is_symlink():
                out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An experiments-layout copy of the project, with the inputs and links the cases point at."""
    root = tmp_path_factory.mktemp("output") / "project"
    root.mkdir()
    shutil.copyfile(REPO / "schemarouter.yaml", root / "schemarouter.yaml")
    for top in FROZEN[:-1]:
        shutil.copytree(REPO / top, root / top, ignore=shutil.ignore_patterns(".*"))
    shutil.copyfile(FIXTURES / "import" / "acme_commerce.openapi.yaml", root / "acme.openapi.yaml")
    shutil.copyfile(FIXTURES / "import" / "acme_commerce.queries.jsonl", root / "queries.jsonl")
    shutil.copyfile(REPO / "catalogs" / "0.14" / "catalog_100.json", root / "catalog.json")
    # Relative links, so that each copy's links point into its own frozen folders.
    (root / "link-0.14").symlink_to(Path("spec") / "0.14", target_is_directory=True)
    (root / "link-catalog.json").symlink_to(Path("catalogs") / "0.14" / "catalog_100.json")
    fake = root / "runs" / "fake"
    fake.mkdir(parents=True)
    (fake / "manifest.json").write_text("{}\n", encoding="utf-8")
    (root / "build").mkdir()
    return root


@pytest.fixture(scope="module")
def scored(template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The template with one scored pilot run (two episodes on the dev surface; never scoring of record)."""
    root = tmp_path_factory.mktemp("scored") / "project"
    shutil.copytree(template, root, symlinks=True)
    args = ["run", "--surface", "dev", "--conditions", "SR-5-STATE-AWARE,FULL", "--catalogs", "100"]
    more = [
        "--tasks",
        "S1-de-dev-01",
        "--workers",
        "1",
        "--no-plots",
        "--run-dir",
        str(root / "runs" / "pilot"),
    ]
    outcome = run_cli(root, [*args, *more], may_write=("",))
    assert outcome.exit_code == 0, outcome.output
    return root


def _project(case: dict[str, Any], template: Path, scored: Path, tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "project"
    shutil.copytree(scored if "scored_run" in case else template, root, symlinks=True)
    run = root / "runs" / ("pilot" if "scored_run" in case else "fake")
    if "scored_run" in case:
        _flip(run / "per_task.jsonl", case["scored_run"]["edit"])
    if "gitignore" in case:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / ".gitignore").write_text(case["gitignore"], encoding="utf-8")
    return root, run


def _flip(per_task: Path, key: str) -> None:
    """Change one per-task value by hand: the first row's ``key`` 0 <-> 1."""
    lines = per_task.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row[key] = 1 - row[key]
    lines[0] = json.dumps(row)
    per_task.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _args(case: dict[str, Any], root: Path, run: Path) -> list[str]:
    return [
        a.replace("{project}", str(root)).replace("{fixtures}", str(FIXTURES)).replace("{run}", str(run))
        for a in case["args"]
    ]


def _concurrently(root: Path, args: list[str], times: int) -> list[tuple[int, str]]:
    """``sr`` run ``times`` times at once, as separate processes (the race is between processes)."""
    command = [sys.executable, "-c", "from schemarouter.cli.app import main; main()"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [
        subprocess.Popen(
            [*command, "--project-dir", str(root), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        for _ in range(times)
    ]
    return [(p.wait(), p.communicate()[0]) for p in procs]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_output_case(
    case: dict[str, Any], template: Path, scored: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, run = _project(case, template, scored, tmp_path)
    before = _digests(root)
    args = _args(case, root, run)
    expected = case.get("line", "").replace("{project}", str(root))
    if "concurrent" in case:
        results = _concurrently(root, args, case["concurrent"])
        assert sorted(code for code, _ in results) == [0] + [1] * (case["concurrent"] - 1), results
        refusals = [out.strip() for code, out in results if code == 1]
        assert refusals == [expected] * len(refusals), refusals
        assert all("Traceback" not in out for _, out in results)
        lineage = (root / "spec" / "0.97" / "lineage.yaml").read_text(encoding="utf-8")
        assert "parent: '0.14'" in lineage and "reason: race" in lineage
        assert sorted(p.name for p in (root / "spec").iterdir()) == ["0.14", "0.15", "0.97", "_surfaces"]
    else:
        if case.get("cwd_project"):
            monkeypatch.chdir(root)
        outcome = run_cli(root, args, may_write=tuple(case.get("may_write", ())))
        assert outcome.exit_code == case.get("exit", 1), outcome.output
        assert "Traceback" not in outcome.output
        assert outcome.written == [], f"wrote {outcome.written}"
        assert len(outcome.lines) == 1 or case.get("exit") == 0, outcome.output
        if expected:
            assert outcome.lines == [expected], outcome.output
        if "contains" in case:
            assert any(case["contains"] in line for line in outcome.lines), outcome.output
    assert _digests(root) == before
    verify = run_cli(root, ["verify", "--all"], may_write=("build/",))
    assert verify.exit_code == 0, verify.output


# ---- the generated suite: every writing option x every refused kind of target -------------------


@dataclass(frozen=True)
class Writer:
    """One writing option: the command's arguments with ``{target}`` for the path, its kind."""

    command: str
    option: str
    args: tuple[str, ...]
    kind: str  # "file" or "directory"
    source: str | None = None  # an input of the same command, relative to the project


_EVAL = (
    "retrieval",
    "eval",
    "--catalog-file",
    "{project}/catalog.json",
    "--queries",
    "{project}/queries.jsonl",
)
_FAKE = "{project}/runs/fake"
_INTENTS = "spec/_surfaces/dev/intents.yaml"
WRITERS = (
    Writer(
        "catalog import",
        "--out",
        ("catalog", "import", "{project}/acme.openapi.yaml", "--from", "openapi", "--out", "{target}"),
        "file",
        "acme.openapi.yaml",
    ),
    Writer("retrieval eval", "--json", (*_EVAL, "--json", "{target}"), "file", "queries.jsonl"),
    Writer("retrieval eval", "--markdown", (*_EVAL, "--markdown", "{target}"), "file", "catalog.json"),
    Writer("episode", "--json", ("episode", "S1-en-01", "--json", "{target}"), "file"),
    Writer("episode", "--model-cache", ("episode", "S1-en-01", "--model-cache", "{target}"), "file"),
    Writer("run", "--model-cache", ("run", "--model-cache", "{target}"), "file"),
    Writer("compare", "--json", ("compare", _FAKE, _FAKE, "--json", "{target}"), "file"),
    Writer(
        "bench retrieval",
        "--study-out",
        ("bench", "retrieval", "--surface", "dev", "--study-out", "{target}"),
        "file",
    ),
    Writer("bench serve", "--out", ("bench", "serve", "--out", "{target}"), "directory"),
    Writer("export", "--out", ("export", _FAKE, "--format", "csv", "--out", "{target}"), "directory"),
    Writer("score", "--out", ("score", _FAKE, "--out", "{target}"), "directory"),
    Writer(
        "run",
        "--run-dir",
        ("run", "--conditions", "C3", "--catalogs", "100", "--tasks", "S1-en-01", "--run-dir", "{target}"),
        "directory",
    ),
    Writer(
        "confirm",
        "--run-dir",
        ("confirm", "-e", "0.15", "--surface-file", "{project}/surface.jsonl", "--run-dir", "{target}"),
        "directory",
    ),
    Writer(
        "surface generate",
        "--out",
        ("surface", "generate", "--intents", f"{{project}}/{_INTENTS}", "--seed", "1", "--out", "{target}"),
        "directory",
        _INTENTS,
    ),
)
# Options whose names say "output" but that only read.
READ_ONLY = {("golden", "--run-dir"): "a scored reference run to compare with, never written"}
# Refused targets: name -> (file target, directory target), relative to the project ("" is empty).
TARGETS = {
    "spec-0.14": ("spec/0.14/out.json", "spec/0.14"),
    "spec-0.15": ("spec/0.15/out.json", "spec/0.15"),
    "catalogs-0.14": ("catalogs/0.14/catalog_100.json", "catalogs/0.14"),
    "catalogs-0.15": ("catalogs/0.15/surface.jsonl", "catalogs/0.15"),
    "golden-0.14": ("golden/0.14/out.json", "golden/0.14"),
    "catalogs-surfaces": ("catalogs/_surfaces/dev/0.14/surface.jsonl", "catalogs/_surfaces/dev/0.14"),
    "spec-surfaces": ("spec/_surfaces/dev/out.json", "spec/_surfaces/dev"),
    "symlink-into-0.14": ("link-0.14/out.json", "link-0.14"),
    "symlink-to-frozen-file": ("link-catalog.json", "link-0.14/schema"),
    "dotdot-into-0.15": ("build/../spec/0.15/out.json", "build/../catalogs/0.15"),
    "project-root": ("schemarouter.yaml", ""),
    "empty": (None, None),
}


def _variants() -> list[tuple[str, Writer, str | None]]:
    out = []
    for writer in WRITERS:
        name = f"{writer.command.replace(' ', '-')}{writer.option}"
        for target, (file, directory) in TARGETS.items():
            out.append((f"{name}-{target}", writer, file if writer.kind == "file" else directory))
        if writer.source is not None:
            out.append((f"{name}-own-source", writer, writer.source))
    return out


VARIANTS = _variants()


@pytest.fixture(scope="module")
def shared(template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the template for the variants (each checks that it wrote nothing)."""
    root = tmp_path_factory.mktemp("variants") / "project"
    shutil.copytree(template, root, symlinks=True)
    return root


@pytest.mark.parametrize(("name", "writer", "target"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_output_variant(name: str, writer: Writer, target: str | None, shared: Path) -> None:
    value = "" if target is None else str(shared / target) if target else str(shared)
    args = [a.replace("{project}", str(shared)).replace("{target}", value) for a in writer.args]
    outcome = run_cli(shared, args)
    assert outcome.exit_code == 1, outcome.output
    assert "Traceback" not in outcome.output
    assert outcome.written == [], f"wrote {outcome.written}"
    assert len(outcome.lines) == 1, outcome.output
    line = outcome.lines[0]
    shown = repr(".") if target is None else value
    assert line.startswith(f"{writer.option} {shown}"), line
    assert "refused: " in line or line.endswith("not a regular file; name a file to write"), line


def test_the_generated_suite_is_large_enough() -> None:
    assert len(VARIANTS) >= 30, len(VARIANTS)


WRITING_NAMES = ("--out", "--json", "--markdown", "--run-dir", "--model-cache")


def _writing_options() -> set[tuple[str, str]]:
    """Every (command, option) of the CLI whose option name says it writes a path."""
    found = set()

    def walk(command: Any, path: list[str]) -> None:
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            walk(sub, [*path, name])
        for param in getattr(command, "params", []):
            for opt in getattr(param, "opts", []):
                named = opt in WRITING_NAMES or opt.endswith("-out")
                if named and not getattr(param, "is_flag", False):
                    found.add((" ".join(path), opt))

    walk(typer.main.get_command(app), [])
    return found


def test_every_writing_option_is_held_to_the_guard() -> None:
    held = {(w.command, w.option) for w in WRITERS} | set(READ_ONLY)
    missing = sorted(_writing_options() - held)
    assert missing == [], (
        f"writing options not in WRITERS: {missing}; route them through schemarouter/output_guard.py "
        "and add them here"
    )
    assert held - set(READ_ONLY) <= _writing_options()
