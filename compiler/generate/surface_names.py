"""Where a project's named surfaces are (``spec/_surfaces/<name>/``, generated into
``catalogs/_surfaces/<name>/<experiment-id>/``) and which exist: paths and a directory listing only.

Kept apart from ``surface_only.py`` (which generates a surface and imports the generator, networkx
included) so that a command that only asks whether the development surface exists (every ``sr run``'s
code check, ``sr preflight``, ``sr confirm``) loads none of the generator.
"""

from __future__ import annotations

from pathlib import Path

from runtime.core.errors import SchemaRouterError
from runtime.surface.io import SURFACE_FILE
from schemarouter.project import PROJECT_FILE, ProjectPaths

SURFACES_DIR = "_surfaces"
DEV_SURFACE = "dev"


def named_surface_spec_dir(root: Path, name: str) -> Path:
    return root / "spec" / SURFACES_DIR / name


def named_surface_out_dir(root: Path, name: str, experiment: str | None) -> Path:
    if experiment is None:
        # In the flat layout catalogs/ is the experiment's own (frozen) directory.
        raise SchemaRouterError(
            f"surface {name!r}: named surfaces need the experiments layout (a schemarouter.yaml); "
            "use `sr surface generate --intents FILE --seed N --out DIR`"
        )
    return root / "catalogs" / SURFACES_DIR / name / experiment


def named_surfaces(root: Path) -> list[str]:
    """The named surfaces of a project: the directories spec/_surfaces/<name>/ with a surface.yaml."""
    base = root / "spec" / SURFACES_DIR
    if not (root / PROJECT_FILE).is_file() or not base.is_dir():
        return []
    return sorted(p.name for p in base.iterdir() if p.is_dir() and (p / "surface.yaml").is_file())


def committed_named_surfaces(project: ProjectPaths) -> list[str]:
    """The named surfaces with a committed generation for ``project``'s experiment."""
    return [
        name
        for name in named_surfaces(project.root)
        if (named_surface_out_dir(project.root, name, project.experiment) / SURFACE_FILE).is_file()
    ]
