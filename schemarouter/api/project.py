"""Which project and experiment a library call works on, and a console that prints only when asked."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from schemarouter.project import ProjectPaths

ProjectArg = str | Path | ProjectPaths


def project_paths(project: ProjectArg = ".", experiment: str | None = None) -> ProjectPaths:
    """The paths of ``experiment`` (default: the project file's) in the project at ``project``."""
    if isinstance(project, ProjectPaths):
        return project if experiment is None else project.with_experiment(experiment)
    return ProjectPaths.at(Path(project), experiment=experiment)


def quiet_console(console: Console | None) -> Console:
    """``console`` when the caller gave one, else a console whose output goes nowhere."""
    return console if console is not None else Console(file=io.StringIO(), quiet=True)
