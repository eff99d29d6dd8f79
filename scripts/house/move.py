"""The folder moves and renames of issue #31, as a re-runnable codemod.

    python scripts/house/move.py [--root DIR] [--dry-run]

Run it at the root of a checkout with a clean work tree (the lead: on the merged main). It

1. moves every file of ``FILE_MOVES`` with ``git mv`` (a folder move moves each file still under the
   old folder, so files a later merge added there follow; a file present at both places is an error);
2. rewrites every dotted module name and every path of a moved module in the tracked text files
   (Python, Makefile, pyproject.toml, Markdown, JSON schemas, shell scripts, tests), never in a frozen
   file: nothing under ``spec/``, ``catalogs/``, ``golden/``, no ``*.lock``;
3. rewrites ``from schemarouter import errors`` style imports of the moved ground modules;
4. replaces pyproject's hand-kept package list with ``[tool.setuptools.packages.find]``, the Makefile's
   mypy symlink farm with a plain ``mypy -p``, and the architecture test's path rewriting;
5. writes the module-move table ``runtime/spec_model/module_moves.py`` that ``sr verify`` reads to find
   the modules frozen locks record by their old names.

Every step is idempotent: a second run changes nothing; a run after more branches merged rewrites only
what they brought in the old style. It prints what it did and exits 1 on anything it could not do.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

# Old path -> new path (files or folders), relative to the checkout. Folders end without a slash.
GROUND = ("errors", "safe_json", "atomic_write", "limits", "jcs", "registry", "discovery", "progress")
FILE_MOVES: tuple[tuple[str, str], ...] = (
    *((f"schemarouter/{m}.py", f"runtime/core/{m}.py") for m in GROUND),
    ("schemarouter/documents", "runtime/documents"),
    ("schemarouter/llm_smoke.py", "schemarouter/application/llm_smoke.py"),
    # One name per concept (ARCHITECTURE.md, glossary).
    ("runtime/policy/gate.py", "runtime/authorization/execution_gate.py"),
    ("runtime/policy/audit.py", "runtime/authorization/attempt_audit.py"),
    ("runtime/policy/executor.py", "runtime/authorization/allowed_execution.py"),
    ("runtime/policy", "runtime/authorization"),
    ("runtime/scoring/gate.py", "runtime/scoring/success_gate.py"),
    ("runtime/engine/audit.py", "runtime/engine/metrics_audit.py"),
    ("runtime/run/executor.py", "runtime/run/episode_pool.py"),
    ("schemarouter/application/reference.py", "schemarouter/application/reference_run.py"),
    ("compiler/protocol.py", "compiler/protocol_file.py"),
)
NEW_PACKAGES = ("runtime/core/__init__.py",)
CORE_INIT = '"""The ground: the error type, bounded JSON, atomic writes, JCS, limits, the one registry."""\n'

# Files never rewritten: frozen data, and this codemod with its own tests and table (they name the old
# modules on purpose).
FROZEN_DIRS = ("spec/", "catalogs/", "golden/")
OWN = ("scripts/house/", "tests/test_house_move.py", "runtime/spec_model/module_moves.py")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".json", ".sh", ".cfg", ".ini", ".txt", ".yaml", ".yml", ".pyi"}
TABLE = "runtime/spec_model/module_moves.py"


def _dotted(path: str) -> str:
    """The dotted module name a path of the old layout has (compiler/, runtime/ under schemarouter)."""
    stem = path[: -len(".py")] if path.endswith(".py") else path
    parts = stem.split("/")
    if parts[0] in ("compiler", "runtime"):
        parts = ["schemarouter", *parts]
    return ".".join(parts)


def _new_dotted(path: str) -> str:
    stem = path[: -len(".py")] if path.endswith(".py") else path
    return ".".join(stem.split("/"))


def module_rules() -> dict[str, str]:
    """Old dotted name (a module or a package prefix) -> new dotted name."""
    rules = {"schemarouter.compiler": "compiler", "schemarouter.runtime": "runtime"}
    for old, new in FILE_MOVES:
        rules[_dotted(old)] = _new_dotted(new)
        short = _dotted(old).removeprefix("schemarouter.")
        if short.startswith(("runtime.", "compiler.")):  # the area names ARCHITECTURE.md and tests use
            rules[short] = _new_dotted(new)
    # A module inside a moved folder keeps its place in the folder (the folder rule covers it).
    return rules


def path_rules() -> dict[str, str]:
    rules = dict(FILE_MOVES)
    for old, new in FILE_MOVES:
        if old.endswith(".py") and old.count("/") >= 2:  # "scoring/gate.py" as the READMEs write it
            rules.setdefault(old.split("/", 1)[1], new.split("/", 1)[1])
    return rules


def _alternation(keys: list[str]) -> str:
    return "|".join(re.escape(k) for k in sorted(keys, key=lambda k: (-len(k), k)))


def dotted_pattern(rules: dict[str, str]) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.])({_alternation(list(rules))})(?![\w])")


def path_pattern(rules: dict[str, str]) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w./-])({_alternation(list(rules))})(?![\w-])")


FROM_ROOT = re.compile(r"^([ \t]*)from schemarouter import (\([^)]*\)|[^\n(]+)$", re.MULTILINE)
FROM_ANY = re.compile(r"^([ \t]*from ([\w.]+) import )(\([^)]*\)|[^\n(]+)$", re.MULTILINE)
# A root module that moves: its name -> the package it is imported from now.
ROOT_MOVES = {
    **dict.fromkeys(GROUND, "runtime.core"),
    "documents": "runtime",
    "llm_smoke": "schemarouter.application",
}


@dataclass
class Report:
    moved: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    long_lines: list[str] = field(default_factory=list)


def _names(body: str) -> list[str]:
    return [n.strip() for n in body.strip("()").replace("\n", " ").split(",") if n.strip()]


def rewrite_root_imports(text: str, where: str, report: Report) -> str:
    """``from schemarouter import safe_json`` -> ``from runtime.core import safe_json`` (and so on)."""

    def replace(match: re.Match[str]) -> str:
        names = _names(match.group(2))
        homes = {ROOT_MOVES.get(n.split(" as ")[0].strip(), "schemarouter") for n in names}
        if homes == {"schemarouter"}:
            return match.group(0)
        if len(homes) == 1:
            return f"{match.group(1)}from {homes.pop()} import {match.group(2)}"
        if "(" in match.group(2):
            report.problems.append(f"{where}: mixed import from schemarouter: {match.group(0).strip()}")
            return match.group(0)
        by_home: dict[str, list[str]] = {}
        for n in names:
            by_home.setdefault(ROOT_MOVES.get(n.split(" as ")[0].strip(), "schemarouter"), []).append(n)
        lines = [f"{match.group(1)}from {h} import {', '.join(ns)}" for h, ns in sorted(by_home.items())]
        return "\n".join(lines)

    return FROM_ROOT.sub(replace, text)


def leaf_renames() -> dict[str, dict[str, str]]:
    """New parent package -> {old module leaf: new leaf} for every module renamed inside its package."""
    out: dict[str, dict[str, str]] = {}
    for old, new in FILE_MOVES:
        if old.endswith(".py") and old.rsplit("/", 1)[1] != new.rsplit("/", 1)[1]:
            parent = _new_dotted(new).rpartition(".")[0]
            old_leaf = old.rsplit("/", 1)[1].removesuffix(".py")
            out.setdefault(parent, {})[old_leaf] = new.rsplit("/", 1)[1].removesuffix(".py")
    return out


def rewrite_leaf_imports(text: str) -> str:
    """``from runtime.scoring import gate`` -> ``from runtime.scoring import success_gate as gate`` (the
    local name stays, so no use of it changes; ``x as y`` keeps its alias)."""
    renames = leaf_renames()

    def replace(match: re.Match[str]) -> str:
        leaves = renames.get(match.group(2))
        body = match.group(3)
        if not leaves:
            return match.group(0)
        for old, new in leaves.items():
            body = re.sub(rf"(?<![\w.])(?<!as ){old}\b(?=\s+as\b)", new, body)
            body = re.sub(rf"(?<![\w.])(?<!as ){old}\b(?!\s+as\b)", f"{new} as {old}", body)
        return match.group(1) + body

    return FROM_ANY.sub(replace, text)


def rewrite_text(text: str, where: str, report: Report) -> str:
    mods = module_rules()
    paths = path_rules()
    text = dotted_pattern(mods).sub(lambda m: mods[m.group(1)], text)
    text = path_pattern(paths).sub(lambda m: paths[m.group(1)], text)
    return rewrite_leaf_imports(rewrite_root_imports(text, where, report))


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def tracked(root: Path) -> list[str]:
    return [p for p in _git(root, "ls-files", "-z").split("\0") if p]


def move_files(root: Path, report: Report, dry: bool) -> None:
    for old, new in FILE_MOVES:
        files = [p for p in tracked(root) if p == old or p.startswith(old + "/")]
        for src in files:
            dst = new + src[len(old) :]
            if (root / dst).exists():
                report.problems.append(f"{src}: both {src} and {dst} exist; merge them by hand")
                continue
            report.moved.append(f"{src} -> {dst}")
            if not dry:
                (root / dst).parent.mkdir(parents=True, exist_ok=True)
                _git(root, "mv", src, dst)
    for init in NEW_PACKAGES:
        if not (root / init).exists() and not dry:
            (root / init).parent.mkdir(parents=True, exist_ok=True)
            (root / init).write_text(CORE_INIT, encoding="utf-8")
            _git(root, "add", init)
            report.moved.append(f"(new) {init}")


def rewritable(path: str) -> bool:
    if path.startswith(FROZEN_DIRS) or path.endswith(".lock") or path.startswith(OWN):
        return False
    name = path.rsplit("/", 1)[-1]
    return name == "Makefile" or Path(name).suffix in TEXT_SUFFIXES


PACKAGES_FIND = """[tool.setuptools.packages.find]
# Packages are found, never listed: schemarouter (application, cli, api, project layout), compiler and
# runtime install as three top-level packages (ARCHITECTURE.md, "Import names").
include = ["schemarouter*", "compiler*", "runtime*"]

[tool.setuptools.package-data]
"compiler" = ["*.json", "**/*.json"]
"runtime" = ["*.json", "**/*.json", "report/assets/*"]
"""
TYPECHECK = """typecheck: $(STAMP)
\t$(BIN)/mypy -p schemarouter -p compiler -p runtime
"""


def rewrite_pyproject(text: str) -> str:
    text = re.sub(
        r"^\[tool\.setuptools\]\n.*?(?=^\[tool\.(?!setuptools))",
        PACKAGES_FIND + "\n",
        text,
        flags=re.S | re.M,
    )
    return text.replace(
        'known-first-party = ["schemarouter"]', 'known-first-party = ["schemarouter", "compiler", "runtime"]'
    )


def rewrite_makefile(text: str) -> str:
    return re.sub(
        r"# mypy cannot follow the package-dir mapping.*?\ntypecheck: \$\(STAMP\)\n(?:\t[^\n]*\n)+",
        TYPECHECK,
        text,
        flags=re.S,
    )


def rewrite_architecture_test(text: str) -> str:
    text = text.replace(
        '    if parts[0] in ("compiler", "runtime"):\n        parts = ["schemarouter", *parts]\n', ""
    )
    ground = (
        r'    \(\n(?:        "runtime\.core(?:\.\w+)?",\n)+'
        r'        "runtime\.documents",\n        "schemarouter",\n    \),'
    )
    text = re.sub(ground, '    ("runtime.core", "runtime.documents", "schemarouter"),', text, count=1)
    smoke = '("schemarouter.application", "schemarouter.application.llm_smoke")'
    return text.replace(smoke, '("schemarouter.application",)')


ROW_0 = (
    "| 0 | `runtime.core` (`errors`, `safe_json`, `atomic_write`, `limits`, `jcs`, `registry`, `discovery`,"
    " `progress`), `runtime.documents`, `schemarouter` (the package's lazy public face) |"
)
TEMPLATES = Path(__file__).parent / "templates"


def rewrite_architecture(text: str) -> str:
    text = re.sub(r"^\| 0 \| `schemarouter` \(root modules[^|]*\|", ROW_0, text, count=1, flags=re.M)
    text = text.replace("| 12 | `application`, `llm_smoke` |", "| 12 | `application` (with `llm_smoke`) |")
    anchor = "\n## Who writes inside an experiment\n"
    if "\n## Import names\n" not in text:
        sections = (TEMPLATES / "architecture_sections.md").read_text(encoding="utf-8")
        text = text.replace(anchor, "\n" + sections + anchor)
    return text


def rewrite_packaging_test(text: str) -> str:
    """The packaging test is wholly about the layout: the new one replaces it."""
    return (TEMPLATES / "test_packaging.py").read_text(encoding="utf-8")


SPECIAL = {
    "ARCHITECTURE.md": rewrite_architecture,
    "tests/test_packaging.py": rewrite_packaging_test,
    "pyproject.toml": rewrite_pyproject,
    "Makefile": rewrite_makefile,
    "tests/test_architecture.py": rewrite_architecture_test,
}


def rewrite_files(root: Path, report: Report, dry: bool) -> None:
    for path in tracked(root):
        file = root / path
        if not rewritable(path) or not file.is_file():
            continue
        before = file.read_text(encoding="utf-8")
        after = rewrite_text(before, path, report)
        if path in SPECIAL:
            after = SPECIAL[path](after)
        if after != before:
            report.rewritten.append(path)
            report.long_lines += _new_long_lines(path, before, after)
            if not dry:
                file.write_text(after, encoding="utf-8")


def _new_long_lines(path: str, before: str, after: str, limit: int = 110) -> list[str]:
    """Lines over the line length that the rewrite made (longer names); the lead rewraps them."""
    if not path.endswith(".py"):
        return []
    old = {line for line in before.splitlines() if len(line) > limit}
    lines = enumerate(after.splitlines(), 1)
    return [f"{path}:{n}" for n, line in lines if len(line) > limit and line not in old]


def table_text(root: Path) -> str:
    text = (root / TABLE).read_text(encoding="utf-8")
    rules = {k: v for k, v in module_rules().items() if k.startswith("schemarouter.")}
    body = "".join(f'    "{k}": "{rules[k]}",\n' for k in sorted(rules))
    literal = "MOVES: dict[str, str] = {\n" + body + "}\n"
    return re.sub(
        r"(# BEGIN MOVES[^\n]*\n).*?(# END MOVES)",
        lambda m: m.group(1) + literal + m.group(2),
        text,
        flags=re.S,
    )


def write_table(root: Path, report: Report, dry: bool) -> None:
    if not (root / TABLE).is_file():
        report.problems.append(f"{TABLE}: missing (the house branch adds it)")
        return
    text = table_text(root)
    if text != (root / TABLE).read_text(encoding="utf-8"):
        report.rewritten.append(TABLE)
        if not dry:
            (root / TABLE).write_text(text, encoding="utf-8")


def tidy(root: Path, report: Report) -> None:
    """Sort the rewritten imports (runtime and compiler are first-party now) and format, with the
    checkout's ruff when it has one."""
    ruff = root / ".venv" / "bin" / "ruff"
    files = [p for p in report.rewritten if p.endswith(".py")]
    if not ruff.is_file() or not files:
        return
    subprocess.run([str(ruff), "check", "-q", "--select", "I", "--fix", *files], cwd=root, check=False)
    subprocess.run([str(ruff), "format", "-q", *files], cwd=root, check=False)


def run(root: Path, dry: bool = False) -> Report:
    report = Report()
    move_files(root, report, dry)
    rewrite_files(root, report, dry)
    write_table(root, report, dry)
    if not dry:
        tidy(root, report)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd())
    parser.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    args = parser.parse_args(argv)
    report = run(args.root.resolve(), args.dry_run)
    for line in report.moved:
        print(f"moved     {line}")
    for line in report.rewritten:
        print(f"rewritten {line}")
    for line in report.long_lines:
        print(f"rewrap    {line} (over 110 characters after the rewrite; ruff format cannot wrap it)")
    for line in report.problems:
        print(f"problem   {line}", file=sys.stderr)
    print(f"{len(report.moved)} moved, {len(report.rewritten)} rewritten, {len(report.problems)} problems")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
