"""``sr surface stats --surface-file F``: the share of a generated surface's gold plans and goal routes
that the evaluation surface and each named surface (dev) also use. A surface of new capabilities shows
a low share; one that repeats evaluation plans shows it too."""

from __future__ import annotations

from pathlib import Path

from compiler.generate.stats import Reuse, reuse_stats
from compiler.generate.surface_names import named_surfaces
from runtime.surface import load_surface
from runtime.surface.io import load_surface_file
from schemarouter.application.surfaces import choose_surface
from schemarouter.project import ProjectPaths


def surface_reuse(project: ProjectPaths, surface_file: Path) -> list[Reuse]:
    others = {"evaluation": list(load_surface(project.catalogs_dir))}
    for name in named_surfaces(project.root):
        chosen = choose_surface(project, surface=name, surface_file=None)
        if chosen.file is not None and chosen.file.resolve() != surface_file.resolve():
            others[name] = chosen.tasks(project)
    return reuse_stats(load_surface_file(surface_file), others)


def reuse_lines(reuse: list[Reuse]) -> list[str]:
    """One line per other surface, e.g. ``also used by the dev surface: 2/8 (25%) distinct gold plans,
    2/8 (25%) goal routes``."""

    def share(pair: tuple[int, int]) -> str:
        shared, total = pair
        return f"{shared}/{total} ({shared / total:.0%})" if total else "0/0"

    return [
        f"also used by the {r.other} surface: {share(r.plans)} distinct gold plans, "
        f"{share(r.goals)} goal routes"
        for r in reuse
    ]
