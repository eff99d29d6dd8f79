"""Which task surface a command runs on: the experiment's evaluation surface, a named pilot surface
(``--surface dev``) or a generated surface file (``--surface-file DIR/surface.jsonl``).

Anything but the evaluation surface makes a pilot (``PilotSurface`` in the run manifest). A named
surface is the committed ``catalogs/_surfaces/<name>/<id>/surface.jsonl``; an experiment without one
(a new draft successor, say) gets it generated against its own catalogs into ``build/_surfaces/``
(git-ignored), so pilots work on any experiment without touching its files.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from runtime.core.errors import SchemaRouterError
from runtime.run.manifest import PilotSurface
from runtime.surface.io import SURFACE_FILE, load_surface, load_surface_file
from runtime.surface.model import Task
from schemarouter.project import ProjectPaths

EVALUATION = "evaluation"


@dataclass(frozen=True)
class ChosenSurface:
    """The evaluation surface (``pilot`` None) or a pilot's surface file."""

    pilot: PilotSurface | None = None
    file: Path | None = None

    def tasks(self, paths: ProjectPaths) -> list[Task]:
        return load_surface(paths.catalogs_dir) if self.file is None else load_surface_file(self.file)


def _shown(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _pilot(paths: ProjectPaths, name: str, file: Path) -> ChosenSurface:
    tasks = load_surface_file(file)
    _check_routes(paths, tasks, file)
    return ChosenSurface(
        pilot=PilotSurface(
            name=name,
            path=_shown(paths.root, file),
            sha256=hashlib.sha256(file.read_bytes()).hexdigest(),
            tasks=len(tasks),
        ),
        file=file,
    )


def _check_routes(paths: ProjectPaths, tasks: list[Task], file: Path) -> None:
    """Every plan route of a pilot surface must be in the experiment's smallest catalog."""
    sizes = sorted(int(p.stem.split("_")[1]) for p in paths.catalogs_dir.glob("catalog_*.json"))
    if not sizes:
        raise SchemaRouterError(f"{paths.catalogs_dir}: no catalogs; run `sr generate` first")
    data = json.loads((paths.catalogs_dir / f"catalog_{sizes[0]}.json").read_text(encoding="utf-8"))
    routes = {e["route_id"] for e in data["endpoints"]}
    for task in tasks:
        missing = sorted({s.route_id for s in task.hidden.plan} - routes)
        if missing:
            raise SchemaRouterError(
                f"{_shown(paths.root, file)}: task {task.task_id} needs {missing[0]}, which is not in "
                f"catalog_{sizes[0]} of this experiment; generate the surface against it "
                "(sr surface generate --experiment ID)"
            )


def choose_surface(
    paths: ProjectPaths, *, surface: str | None, surface_file: Path | None, file_name: str = "file"
) -> ChosenSurface:
    """The surface of ``--surface NAME`` / ``--surface-file FILE`` (neither: the evaluation surface).
    ``file_name``: the pilot's surface name for a file (``confirmation`` under ``sr confirm``)."""
    if surface is not None and surface_file is not None:
        raise SchemaRouterError("give --surface or --surface-file, not both")
    if surface_file is not None:
        file = surface_file.resolve()
        if file.is_dir():
            file = file / SURFACE_FILE
        if not file.is_file():
            raise SchemaRouterError(f"--surface-file {surface_file}: no such file")
        return _pilot(paths, file_name, file)
    if surface is None or surface == EVALUATION:
        return ChosenSurface()
    from compiler.generate.surface_names import named_surface_out_dir, named_surfaces
    from compiler.generate.surface_only import generate_named, write_surface

    known = named_surfaces(paths.root)
    if surface not in known:
        raise SchemaRouterError(
            f"--surface {surface}: no such surface (surfaces: {', '.join([EVALUATION, *known])})"
        )
    committed = named_surface_out_dir(paths.root, surface, paths.experiment) / SURFACE_FILE
    if committed.is_file():
        return _pilot(paths, surface, committed)
    generated, _ = generate_named(paths, surface)
    out_dir = paths.build_dir / "_surfaces" / surface / str(paths.experiment)
    write_surface(out_dir, generated)
    return _pilot(paths, surface, out_dir / SURFACE_FILE)


def pilot_surface_file(paths: ProjectPaths, pilot: PilotSurface) -> Path:
    """The file a pilot run's manifest names, refused when its bytes changed since the run began."""
    file = Path(pilot.path)
    if not file.is_absolute():
        file = paths.root / file
    if not file.is_file():
        raise SchemaRouterError(f"{pilot.path}: the pilot's surface file is gone")
    if hashlib.sha256(file.read_bytes()).hexdigest() != pilot.sha256:
        raise SchemaRouterError(
            f"{pilot.path}: the pilot's surface file changed since the run began (sha256 differs)"
        )
    return file
