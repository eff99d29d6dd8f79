"""The implementation digest of a component: its module and the in-project modules it imports.

``SourceTree`` maps a dotted ``schemarouter.*`` module name to its file (the three package roots of
pyproject's ``package-dir``: ``schemarouter/``, ``compiler/``, ``runtime/``) and reads import statements
with ``ast`` (never importing anything). ``implementation_digest`` walks the closure and hashes it by
``code_record.DIGEST_RULE``. A module that is not in the tree (a test module, an installed package's)
is hashed by its own file when it has one, without closure.
"""

from __future__ import annotations

import ast
import hashlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

from schemarouter.jcs import dumps as jcs_dumps
from schemarouter.runtime.spec_model.digest import Digest

PREFIX = "schemarouter"
_ROOTS = (("schemarouter.compiler", "compiler"), ("schemarouter.runtime", "runtime"), ("schemarouter", ""))


def installed_source_root() -> Path:
    """The directory holding schemarouter/, compiler/ and runtime/ of the running code."""
    return Path(__file__).resolve().parents[2]


@dataclass
class SourceTree:
    """The project's source files under ``root`` (default: the running code's)."""

    root: Path = field(default_factory=installed_source_root)
    _imports: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    def file_of(self, module: str) -> Path | None:
        """The file of ``module`` inside the tree (a package: its __init__.py), or None."""
        for prefix, folder in _ROOTS:
            if module == prefix or module.startswith(prefix + "."):
                rest = module[len(prefix) :].lstrip(".").split(".") if module != prefix else []
                base = self.root / (folder or "schemarouter")
                path = base.joinpath(*rest) if rest else base
                if path.with_suffix(".py").is_file() and rest:
                    return path.with_suffix(".py")
                if (path / "__init__.py").is_file():
                    return path / "__init__.py"
                return None
        return None

    def display(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def imports_of(self, module: str) -> tuple[str, ...]:
        """The in-project modules that ``module``'s import statements name."""
        if module not in self._imports:
            self._imports[module] = self._read_imports(module)
        return self._imports[module]

    def _read_imports(self, module: str) -> tuple[str, ...]:
        file = self.file_of(module)
        if file is None:
            return ()
        tree = ast.parse(file.read_bytes(), filename=str(file))
        package = module if file.name == "__init__.py" else module.rpartition(".")[0]
        found: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, package)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    found.append(sub if self.file_of(sub) is not None else base)
        return tuple(sorted({m for m in found if m == PREFIX or m.startswith(PREFIX + ".")}))

    def closure(self, module: str) -> list[Path]:
        """The files of ``module`` and of every in-project module it imports, transitively, sorted."""
        seen: set[str] = set()
        todo = [module]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            todo += [m for m in self.imports_of(current) if m not in seen]
        files = {f for m in seen if (f := self.file_of(m)) is not None}
        if not files:
            own = _outside_file(module)
            files = {own} if own is not None else set()
        return sorted(files)

    def implementation_digest(self, module: str) -> tuple[Digest, int]:
        """(digest by DIGEST_RULE, number of files covered) of ``module``."""
        files = self.closure(module)
        pairs = sorted([self.display(f), hashlib.sha256(f.read_bytes()).hexdigest()] for f in files)
        return Digest(algorithm="sha256", digest=hashlib.sha256(jcs_dumps(pairs)).hexdigest()), len(pairs)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join([*base, *([node.module] if node.module else [])])


def _outside_file(module: str) -> Path | None:
    loaded = sys.modules.get(module)
    file = getattr(loaded, "__file__", None)
    return Path(file) if file else None
