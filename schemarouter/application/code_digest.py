"""The implementation digest of a component: its module and the in-project modules it imports.

``SourceTree`` maps a dotted ``schemarouter.*`` module name to its file (the three package roots of
pyproject's ``package-dir``: ``schemarouter/``, ``compiler/``, ``runtime/``) and reads import statements
with ``ast`` (never importing anything). ``implementation_digest`` walks the closure and hashes it by
``code_record.DIGEST_RULE``. A module of an installed package (a plugin's, registered through its entry
point) is hashed by every Python file its distribution installed, named
``<distribution>/<path>`` so the digest does not depend on where it is installed, plus the in-project
modules those files import. Any other module outside the tree (a test module) is hashed by its own
file, without closure.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from runtime.core.content_memo import ContentMemo
from runtime.core.jcs import dumps as jcs_dumps
from runtime.spec_model.digest import Digest

# (dotted prefix, folder under the source root): the project's packages, most specific first. A module
# is in the project when its name is a prefix or starts with one and a dot.
_ROOTS = (("compiler", "compiler"), ("runtime", "runtime"), ("schemarouter", ""))
PREFIXES = tuple(prefix for prefix, _ in _ROOTS)


def in_project(module: str) -> bool:
    """Whether ``module`` names one of the project's packages or a module inside one."""
    return any(module == p or module.startswith(p + ".") for p in PREFIXES)


def installed_source_root() -> Path:
    """The directory holding schemarouter/, compiler/ and runtime/ of the running code."""
    return Path(__file__).resolve().parents[2]


@dataclass
class SourceTree:
    """The project's source files under ``root`` (default: the running code's)."""

    root: Path = field(default_factory=installed_source_root)
    cache: ImportsCache | None = None  # import statements kept between processes (build/)
    _imports: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _files: dict[str, Path | None] = field(default_factory=dict, repr=False)

    def file_of(self, module: str) -> Path | None:
        """The file of ``module`` inside the tree (a package: its __init__.py), or None; looked up once
        per tree, as its imports are."""
        if module not in self._files:
            self._files[module] = self._find_file(module)
        return self._files[module]

    def _find_file(self, module: str) -> Path | None:
        for prefix, folder in _ROOTS:
            if module == prefix or module.startswith(prefix + "."):
                rest = module[len(prefix) :].lstrip(".").split(".") if module != prefix else []
                base = self.root / (folder or prefix)
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
        package = module if file.name == "__init__.py" else module.rpartition(".")[0]
        return self._file_imports(file, package)

    def _file_imports(self, file: Path, package: str) -> tuple[str, ...]:
        found: list[str] = []
        for level, module, names in import_statements(file, self.cache):
            if level < 0:
                found += names
                continue
            base = _absolute(level, module, package)
            for name in names:
                sub = f"{base}.{name}"
                found.append(sub if self.file_of(sub) is not None else base)
        return tuple(sorted({m for m in found if in_project(m)}))

    def closure(self, module: str) -> list[Path]:
        """The files of ``module`` and of every in-project module it imports, transitively, sorted."""
        return sorted(file for _, file in self.covered(module))

    def covered(self, module: str) -> list[tuple[str, Path]]:
        """(name in the digest, file) of every file the digest of ``module`` covers, sorted by name."""
        plugin = self._plugin_files(module) if self.file_of(module) is None else []
        in_tree = self._in_tree(module, [m for _, f in plugin for m in self._file_imports(f, "")])
        if not (plugin or in_tree):
            own = _outside_file(module)
            return [] if own is None else [(self.display(own), own)]
        return sorted([*plugin, *((self.display(f), f) for f in in_tree)])

    def _plugin_files(self, module: str) -> list[tuple[str, Path]]:
        """The Python files of the installed distribution that holds ``module`` (found from the installed
        metadata, nothing imported, so a verify that loads no registry reads the same files)."""
        from importlib import metadata

        name = _distribution_holding(module)
        if name is None:
            return []
        installed = metadata.distribution(name)
        dist_name = installed.metadata["Name"] or name
        files = [
            (f"{dist_name}/{f.as_posix()}", Path(str(installed.locate_file(f))))
            for f in installed.files or ()
            if f.suffix == ".py" and "__pycache__" not in f.parts
        ]
        own = _outside_file(module)
        if not files and own is not None:  # an editable install lists no files of its own
            files = [(f"{dist_name}/{own.name}", own)]
        return [(name, path) for name, path in files if path.is_file()]

    def _in_tree(self, module: str, extra: list[str]) -> list[Path]:
        seen: set[str] = set()
        todo = [module, *extra]
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            todo += [m for m in self.imports_of(current) if m not in seen]
        return sorted({f for m in seen if (f := self.file_of(m)) is not None})

    def implementation_digest(self, module: str) -> tuple[Digest, int]:
        """(digest by DIGEST_RULE, number of files covered) of ``module``."""
        pairs = sorted([name, hashlib.sha256(f.read_bytes()).hexdigest()] for name, f in self.covered(module))
        return Digest(algorithm="sha256", digest=hashlib.sha256(jcs_dumps(pairs)).hexdigest()), len(pairs)


# The fields of a statement that hold statements. An import is a statement, so it sits in one of these
# lists, however deep (a lazy import inside a function, a branch, a handler); walking statements only
# finds the same imports as ``ast.walk`` without visiting every expression.
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _statements(block: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``block`` and, depth first, of the blocks nested in it."""
    for node in block:
        yield node
        for name in _BLOCKS:
            for part in getattr(node, name, None) or ():
                # an except handler or a match case is no statement: its body holds them
                yield from _statements([part] if isinstance(part, ast.stmt) else part.body)


def _absolute(level: int, module: str | None, package: str) -> str:
    if not level:
        return module or ""
    parts = package.split(".")
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*base, *([module] if module else [])])


# (level, module, names) of each import statement of a file: level -1 for ``import a.b`` (names: the
# modules), else ``from``'s level, module and imported names. By the file's exact bytes, since every
# component's closure parses the same shared modules (runtime/core/content_memo.py).
ImportStatement = tuple[int, str | None, tuple[str, ...]]
_IMPORTS: ContentMemo[bytes, tuple[ImportStatement, ...]] = ContentMemo(maxsize=1024)


def import_statements(file: Path, cache: ImportsCache | None = None) -> tuple[ImportStatement, ...]:
    """The import statements of ``file``, at any depth, in source order (parsed, never imported; with
    ``cache``, parsed once for all processes that share it)."""
    raw = file.read_bytes()
    if cache is None:
        return _IMPORTS.get(raw, lambda: _parse_imports(raw, str(file)))
    return _IMPORTS.get(raw, lambda: cache.statements(raw, str(file)))


IMPORTS_CACHE = "code_imports.json"
_CACHE_VERSION = 1
_CACHE_MAX_BYTES = 16 * 1024 * 1024
_CACHE_MAX_ENTRIES = 8192


class ImportsCache:
    """Import statements by the sha256 of a source file's bytes, kept between processes in one JSON file
    (``build/code_imports.json``): what ``ast`` found in those exact bytes, so a file whose bytes
    changed is parsed again. A speed-up only: an unreadable, oversized or malformed file is ignored and
    rewritten; one that cannot be written is left alone.

    It cannot make a changed implementation pass unseen. A digest covers the files of the closure these
    statements give, each hashed from its own bytes: an entry that named other imports for a file
    changes the closure, and so the digest, which then differs from the pinned one (and the canaries
    run), while an edited file has another sha256 and no entry."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries: dict[str, tuple[ImportStatement, ...]] | None = None
        self._added = False

    def statements(self, raw: bytes, filename: str) -> tuple[ImportStatement, ...]:
        """``_parse_imports(raw)``, from the file when it holds ``raw``'s digest."""
        entries = self._loaded()
        digest = hashlib.sha256(raw).hexdigest()
        found = entries.get(digest)
        if found is None:
            found = entries[digest] = _parse_imports(raw, filename)
            self._added = True
        return found

    def save(self) -> None:
        """Write the entries back when this process parsed a file the cache did not hold."""
        if not self._added or self._entries is None:
            return
        from runtime.core.atomic_write import write_text_atomic
        from runtime.core.errors import SchemaRouterError

        kept = dict(list(self._entries.items())[-_CACHE_MAX_ENTRIES:])
        body = {d: [[level, module, list(names)] for level, module, names in st] for d, st in kept.items()}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(
                self.path, json.dumps({"version": _CACHE_VERSION, "imports": body}, sort_keys=True) + "\n"
            )
        except (OSError, SchemaRouterError):  # write_text_atomic says "cannot write" as the latter
            return  # a read-only checkout still checks its code; it parses again next time
        self._added = False

    def _loaded(self) -> dict[str, tuple[ImportStatement, ...]]:
        if self._entries is None:
            self._entries = _read_cache(self.path)
        return self._entries


def _read_cache(path: Path) -> dict[str, tuple[ImportStatement, ...]]:
    """The entries of the cache file; none when it is missing, too large, or not exactly the format."""
    from runtime.core import safe_json

    try:
        if path.stat().st_size > _CACHE_MAX_BYTES:
            return {}
        data = safe_json.loads(path.read_bytes())
    except (OSError, safe_json.JsonTextError):
        return {}
    if not isinstance(data, dict) or data.get("version") != _CACHE_VERSION:
        return {}
    imports = data.get("imports")
    if not isinstance(imports, dict) or len(imports) > _CACHE_MAX_ENTRIES:
        return {}
    out: dict[str, tuple[ImportStatement, ...]] = {}
    for digest, statements in imports.items():
        parsed = _statements_of(statements)
        if not _SHA256_HEX.fullmatch(digest) or parsed is None:
            return {}
        out[digest] = parsed
    return out


def _statements_of(value: object) -> tuple[ImportStatement, ...] | None:
    """Stored statements as ``_parse_imports`` gives them, or None when any part is not of its type."""
    if not isinstance(value, list):
        return None
    out: list[ImportStatement] = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 3):
            return None
        level, module, names = item
        if type(level) is not int or not (module is None or isinstance(module, str)):
            return None
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return None
        out.append((level, module, tuple(names)))
    return tuple(out)


_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def _parse_imports(raw: bytes, filename: str) -> tuple[ImportStatement, ...]:
    found: list[ImportStatement] = []
    for node in _statements(ast.parse(raw, filename=filename).body):
        if isinstance(node, ast.Import):
            found.append((-1, None, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module, tuple(a.name for a in node.names)))
    return tuple(found)


def _distribution_holding(module: str) -> str | None:
    """The one installed distribution providing ``module``'s top-level package (never this project)."""
    from importlib import metadata

    top = module.partition(".")[0]
    if in_project(top):
        return None
    names = sorted(set(metadata.packages_distributions().get(top, ())))
    return names[0] if len(names) == 1 else None


def _outside_file(module: str) -> Path | None:
    loaded = sys.modules.get(module)
    file = getattr(loaded, "__file__", None)
    return Path(file) if file else None
