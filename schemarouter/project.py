"""Where a SchemaRouter project's files live, and which experiment a command works on.

Like dbt, ``sr`` works on the project directory it is run in (the current directory, or
``--project-dir``), never on the directory the package was installed from, so a copy or a clone of
the repository checks its own files.

Two layouts:

* **Experiments** (a project file ``schemarouter.yaml`` at the root). Each experiment ``ID`` is
  self-contained in the design card's top-level folders: ``spec/ID/`` (its specs, ``spec/ID/schema/``
  and ``spec/ID/freeze.lock``), ``catalogs/ID/`` (its generated catalogs and surface) and
  ``golden/ID/`` (its golden files). The project file names the default experiment; every command
  takes ``--experiment ID``.
* **Flat** (no project file): one experiment in ``spec/``, ``catalogs/`` and ``golden/`` themselves.
  This is the layout of a project before it held several experiments, of git history from then, and
  of the scratch copies ``sr golden`` and the tests make.

Inside an experiment every file has a *logical* path, ``spec/<rest>`` or ``catalogs/<rest>``, the same
in both layouts. Locks, digests and compiled manifests name files by logical path, so moving an
experiment from the flat layout into ``spec/ID/`` keeps its freeze root. Messages for people name the
physical path (``spec/0.14/conditions.yaml``), which is where the file is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from runtime.core.errors import SchemaRouterError

PROJECT_FILE = "schemarouter.yaml"
LOCK_NAME = "freeze.lock"
# An experiment id is a directory name: letters, digits, dots, dashes and underscores.
EXPERIMENT_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
_id_re = re.compile(EXPERIMENT_ID_PATTERN)
LOGICAL_TOPS = ("spec", "catalogs")


def check_experiment_id(experiment_id: str) -> str:
    """``experiment_id`` if it is a valid directory name for an experiment; else a clear error."""
    if not _id_re.fullmatch(experiment_id) or experiment_id in (".", ".."):
        raise SchemaRouterError(
            f"experiment id {experiment_id!r} is not valid: letters, digits, '.', '-' and '_' "
            "(starting with a letter or digit, at most 64 characters)"
        )
    return experiment_id


@dataclass(frozen=True)
class ProjectPaths:
    """The well-known paths of one experiment of one project directory.

    ``experiment`` is None for the flat layout (spec/, catalogs/, golden/ hold the one experiment).
    """

    root: Path
    experiment: str | None = None

    @classmethod
    def at(cls, root: Path | str | None = None, *, experiment: str | None = None) -> ProjectPaths:
        """The paths of ``experiment`` (default: the project file's default) in the project at ``root``."""
        resolved = Path(root if root is not None else Path.cwd()).resolve()
        if not (resolved / PROJECT_FILE).is_file():
            if experiment is not None:
                raise SchemaRouterError(
                    f"--experiment {experiment}: {resolved} has no {PROJECT_FILE}, so it holds a single "
                    "experiment in spec/ and takes no --experiment"
                )
            return cls(resolved, None)
        from schemarouter.project_file import read_project_file

        project = read_project_file(resolved)
        chosen = check_experiment_id(experiment if experiment is not None else project.default_experiment)
        if not (resolved / "spec" / chosen).is_dir():
            known = ", ".join(experiment_ids(resolved)) or "none"
            raise SchemaRouterError(f"unknown experiment {chosen!r} (experiments: {known})")
        return cls(resolved, chosen)

    def with_experiment(self, experiment: str) -> ProjectPaths:
        """The same project, another experiment (no existence check: used to create one)."""
        return ProjectPaths(self.root, check_experiment_id(experiment))

    @property
    def layout(self) -> str:
        return "flat" if self.experiment is None else "experiments"

    def _in(self, top: str) -> Path:
        return self.root / top if self.experiment is None else self.root / top / self.experiment

    @property
    def spec_dir(self) -> Path:
        return self._in("spec")

    @property
    def schema_dir(self) -> Path:
        return self.spec_dir / "schema"

    @property
    def lock_file(self) -> Path:
        return self.spec_dir / LOCK_NAME

    @property
    def catalogs_dir(self) -> Path:
        return self._in("catalogs")

    @property
    def golden_dir(self) -> Path:
        return self._in("golden")

    @property
    def build_dir(self) -> Path:
        return self.root / "build"

    @property
    def experiment_build_dir(self) -> Path:
        return self._in("build")

    @property
    def compiled_manifest(self) -> Path:
        return self.experiment_build_dir / "compiled.json"

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs"

    # ---- logical <-> physical paths --------------------------------------------------------------

    def physical(self, logical: str) -> Path:
        """The file a logical path (``spec/<rest>`` or ``catalogs/<rest>``) names."""
        top, _, rest = logical.partition("/")
        if top not in LOGICAL_TOPS or not rest:
            raise SchemaRouterError(f"{logical}: not a path inside an experiment's spec/ or catalogs/")
        return self._in(top) / rest

    def logical(self, path: Path) -> str:
        """The logical path of a file inside this experiment's spec/ or catalogs/ directory."""
        for top in LOGICAL_TOPS:
            base = self._in(top)
            if path == base or base in path.parents:
                rest = path.relative_to(base).as_posix()
                return f"{top}/{rest}"
        raise SchemaRouterError(f"{path}: not inside this experiment's spec/ or catalogs/")

    def display(self, logical: str) -> str:
        """Where a logical path is, relative to the project root (for messages)."""
        return self.physical(logical).relative_to(self.root).as_posix()

    @property
    def lock_display(self) -> str:
        return self.lock_file.relative_to(self.root).as_posix()


def experiment_ids(root: Path) -> list[str]:
    """The experiments of a project in the experiments layout: the directories spec/ID/ holding an
    experiment.yaml, sorted. Empty for a flat project."""
    spec = root / "spec"
    if not (root / PROJECT_FILE).is_file() or not spec.is_dir():
        return []
    return sorted(
        p.name
        for p in spec.iterdir()
        if p.is_dir()
        and not p.is_symlink()
        and _id_re.fullmatch(p.name)
        and (p / "experiment.yaml").is_file()
    )
