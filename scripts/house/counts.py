"""Print the house counts of issue #31 for the project's Python packages.

    .venv/bin/python scripts/house/counts.py [--json] [--list] [ROOT]

- functions over 50 and over 80 lines (``def`` line to last line, decorators excluded, nested
  functions counted on their own);
- radon cyclomatic-complexity blocks ranked D or worse (radon's ``cc_visit``, the ranks of
  ``radon cc``: D is 21-30, E 31-40, F 41+);
- ``Any`` in public signatures: every ``Any`` name in the parameter and return annotations of a public
  function or method (its name and its class's name do not start with ``_``, in a module whose path has
  no part starting with ``_`` other than ``__init__.py``);
- classes that spell out the frozen config: a class body assigning ``model_config = ConfigDict(...)``
  with ``frozen=True`` (FrozenModel itself excepted).

The packages are found by folder (``schemarouter/``, ``compiler/``, ``runtime/``, or their new homes
after the codemod), so the same command gives the before and the after.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from radon.complexity import cc_rank, cc_visit

PACKAGE_DIRS = ("schemarouter", "compiler", "runtime")


@dataclass
class Counts:
    over_50: list[str] = field(default_factory=list)
    over_80: list[str] = field(default_factory=list)
    radon_d_or_worse: list[str] = field(default_factory=list)
    any_in_public: list[str] = field(default_factory=list)
    frozen_config_spelled: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        return {
            "functions_over_50_lines": len(self.over_50),
            "functions_over_80_lines": len(self.over_80),
            "radon_rank_d_or_worse": len(self.radon_d_or_worse),
            "any_in_public_signatures": len(self.any_in_public),
            "classes_spelling_frozen_config": len(self.frozen_config_spelled),
        }


def python_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for name in PACKAGE_DIRS:
        base = root / name
        if base.is_dir():
            files += [p for p in base.rglob("*.py") if not {".venv", "__pycache__"} & set(p.parts)]
    return sorted(files)


def _functions(tree: ast.AST) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None]]:
    """Every function with the name of the class directly holding it (None: module level or nested)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield item, node.name
        elif isinstance(node, ast.Module):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield item, None


def _all_functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _is_public_module(rel: Path) -> bool:
    return not any(part.startswith("_") and part != "__init__.py" for part in rel.parts)


def _any_names(annotation: ast.expr | None) -> int:
    if annotation is None:
        return 0
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return 0
    found = 0
    for node in ast.walk(annotation):
        named = getattr(node, "id", None) if isinstance(node, ast.Name) else getattr(node, "attr", None)
        found += named == "Any"
    return found


def _signature_any(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = fn.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [a for a in (args.vararg, args.kwarg) if a is not None]
    return sum(_any_names(a.annotation) for a in every) + _any_names(fn.returns)


def _spells_frozen_config(cls: ast.ClassDef) -> bool:
    if cls.name == "FrozenModel":
        return False
    for item in cls.body:
        if not isinstance(item, ast.Assign | ast.AnnAssign):
            continue
        targets = item.targets if isinstance(item, ast.Assign) else [item.target]
        if not any(isinstance(t, ast.Name) and t.id == "model_config" for t in targets):
            continue
        value = item.value
        if isinstance(value, ast.Call):
            for kw in value.keywords:
                if kw.arg == "frozen" and isinstance(kw.value, ast.Constant) and kw.value.value is True:
                    return True
    return False


def count_file(path: Path, rel: str, counts: Counts) -> None:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=rel)
    for fn in _all_functions(tree):
        length = (fn.end_lineno or fn.lineno) - fn.lineno + 1
        where = f"{rel}:{fn.lineno} {fn.name} ({length} lines)"
        if length > 50:
            counts.over_50.append(where)
        if length > 80:
            counts.over_80.append(where)
    public_module = _is_public_module(Path(rel))
    for fn, owner in _functions(tree):
        if not public_module or fn.name.startswith("_") or (owner or "").startswith("_"):
            continue
        n = _signature_any(fn)
        counts.any_in_public += [f"{rel}:{fn.lineno} {(owner + '.') if owner else ''}{fn.name}"] * n
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and _spells_frozen_config(node):
            counts.frozen_config_spelled.append(f"{rel}:{node.lineno} {node.name}")
    for block in cc_visit(source):
        rank = cc_rank(block.complexity)
        if rank >= "D":
            name = getattr(block, "fullname", block.name)
            counts.radon_d_or_worse.append(f"{rel}:{block.lineno} {name} {rank}{block.complexity}")


def measure(root: Path) -> Counts:
    counts = Counts()
    for path in python_files(root):
        count_file(path, path.relative_to(root).as_posix(), counts)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".", type=Path)
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--list", action="store_true", help="also list every item counted")
    args = parser.parse_args(argv)
    counts = measure(args.root)
    if args.json:
        payload: dict[str, object] = dict(counts.summary())
        if args.list:
            payload["items"] = {k: v for k, v in vars(counts).items()}
        print(json.dumps(payload, indent=2, sort_keys=True))
        return 0
    for key, value in counts.summary().items():
        print(f"{key:34} {value}")
    if args.list:
        for key, items in vars(counts).items():
            print(f"\n{key}:")
            for item in items:
                print(f"  {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
