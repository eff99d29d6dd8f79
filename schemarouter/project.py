"""Where a SchemaRouter project's files live.

Like dbt, ``sr`` works on the project directory it is run in (the current directory, or
``--project-dir``), never on the directory the package was installed from, so a copy or a clone of
the repository checks its own files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProjectPaths:
    """The well-known paths of one project directory."""

    root: Path

    @classmethod
    def at(cls, root: Path | str | None = None) -> ProjectPaths:
        return cls(Path(root if root is not None else Path.cwd()).resolve())

    @property
    def spec_dir(self) -> Path:
        return self.root / "spec"

    @property
    def schema_dir(self) -> Path:
        return self.spec_dir / "schema"

    @property
    def lock_file(self) -> Path:
        return self.spec_dir / "freeze.lock"

    @property
    def catalogs_dir(self) -> Path:
        return self.root / "catalogs"

    @property
    def build_dir(self) -> Path:
        return self.root / "build"

    @property
    def compiled_manifest(self) -> Path:
        return self.build_dir / "compiled.json"

    @property
    def golden_dir(self) -> Path:
        return self.root / "golden"

    @property
    def runs_dir(self) -> Path:
        return self.root / "runs"
