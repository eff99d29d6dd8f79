"""Find and load the spec files of a project: ``spec/<name>.yaml`` beside ``spec/schema/<name>.schema.json``.

Any number of spec files is handled the same way; each area adds its own file together with its
schema. Pairing problems are reported like any other problem: a spec file without a schema, a schema
without a spec file, a ``.yml`` file, YAML outside the top of ``spec/``, or a missing core file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from compiler.issues import Position, SpecIssue
from compiler.json_loader import load_json_text
from compiler.yaml_loader import LoadedDocument, load_yaml_text
from schemarouter.project import ProjectPaths

# The spec files every experiment has; every other spec file is optional and area-owned.
CORE_SPEC_NAMES = ("protocol", "experiment", "state_contract", "conditions", "strata", "metrics", "gates")
SCHEMA_SUFFIX = ".schema.json"


def relative(paths: ProjectPaths, path: Path) -> str:
    """``path`` relative to the project root, with forward slashes (how files are named everywhere)."""
    return path.relative_to(paths.root).as_posix()


@dataclass
class SpecSet:
    """Every spec file and schema of a project, loaded, with the problems found so far."""

    documents: dict[str, LoadedDocument] = field(default_factory=dict)
    schemas: dict[str, LoadedDocument] = field(default_factory=dict)
    issues: list[SpecIssue] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return sorted(self.documents)


def read_text(path: Path, rel: str) -> tuple[str | None, SpecIssue | None]:
    """The file's text as UTF-8, or the problem that prevented reading it."""
    try:
        return path.read_text(encoding="utf-8"), None
    except UnicodeDecodeError as err:
        return None, SpecIssue(rel, Position(1, 1), (), f"not UTF-8 text: {err.reason}")
    except OSError as err:
        return None, SpecIssue(rel, Position(1, 1), (), f"cannot read: {err.strerror}")


def load_spec_set(paths: ProjectPaths) -> SpecSet:
    """Load every spec file and schema of the project; collect, never raise, problems in the files."""
    found = SpecSet()
    spec_dir, schema_dir = paths.spec_dir, paths.schema_dir
    if not spec_dir.is_dir():
        found.issues.append(
            SpecIssue(relative(paths, spec_dir), Position(1, 1), (), f"no spec directory at {spec_dir}")
        )
        return found
    for path in sorted(spec_dir.rglob("*")):
        rel = relative(paths, path)
        problem = _placement_problem(paths, path)
        if problem is not None:
            found.issues.append(SpecIssue(rel, Position(1, 1), (), problem))
        elif path.is_file() and path.suffix == ".yaml":
            found.documents[path.stem] = _load(path, rel, yaml=True)
    schema_files = sorted(schema_dir.glob(f"*{SCHEMA_SUFFIX}")) if schema_dir.is_dir() else []
    for path in schema_files:
        found.schemas[path.name[: -len(SCHEMA_SUFFIX)]] = _load(path, relative(paths, path), yaml=False)
    found.issues.extend(_pairing_issues(paths, found))
    for document in [*found.documents.values(), *found.schemas.values()]:
        found.issues.extend(document.issues)
    return found


def _placement_problem(paths: ProjectPaths, path: Path) -> str | None:
    """Why a path under spec/ cannot be a spec file (None: a spec file, or not a YAML file at all)."""
    if path.is_symlink():
        return "a symlink; spec files are plain files"
    if not path.is_file() or path.suffix not in (".yaml", ".yml"):
        return None
    if path.name.startswith("."):
        return "a hidden spec file; give it a visible name or remove it"
    if path.suffix == ".yml":
        return "spec files end in .yaml, not .yml"
    if path.parent != paths.spec_dir:
        return f"spec files live directly in {relative(paths, paths.spec_dir)}/"
    return None


def _pairing_issues(paths: ProjectPaths, found: SpecSet) -> Iterator[SpecIssue]:
    """Every spec file has its schema and every schema its spec file; the core spec files exist."""
    spec_dir, schema_dir = paths.spec_dir, paths.schema_dir
    for name in sorted(found.documents):
        if name not in found.schemas:
            yield SpecIssue(
                relative(paths, spec_dir / f"{name}.yaml"),
                Position(1, 1),
                (),
                f"no schema: every spec file needs {relative(paths, schema_dir)}/{name}{SCHEMA_SUFFIX}",
            )
    for name in sorted(found.schemas):
        if name not in found.documents:
            yield SpecIssue(
                relative(paths, schema_dir / f"{name}{SCHEMA_SUFFIX}"),
                Position(1, 1),
                (),
                f"schema without a spec file: {relative(paths, spec_dir)}/{name}.yaml does not exist",
            )
    for name in CORE_SPEC_NAMES:
        if name not in found.documents:
            yield SpecIssue(
                relative(paths, spec_dir / f"{name}.yaml"),
                Position(1, 1),
                (),
                "missing: every experiment has this spec file",
            )


def _load(path: Path, rel: str, *, yaml: bool) -> LoadedDocument:
    text, problem = read_text(path, rel)
    if text is None:
        return LoadedDocument(file=rel, data=None, issues=[problem] if problem else [])
    return load_yaml_text(text, file=rel) if yaml else load_json_text(text, file=rel)
