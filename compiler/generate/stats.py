"""Counts behind `sr surface stats`: per stratum x language cell, and per catalog size."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from runtime.catalog.io import load_catalog
from runtime.surface.io import load_surface, load_surface_file
from runtime.surface.model import Task


@dataclass(frozen=True)
class CellStats:
    code: str
    stratum: str
    language: str
    tasks: int
    intents: int
    plan_steps: tuple[int, int]
    mean_plan_steps: float
    distractors: float
    destructive_hazards: float
    injected: int
    grants: int


def cell_stats(tasks: list[Task]) -> list[CellStats]:
    cells: dict[tuple[str, str], list[Task]] = defaultdict(list)
    for t in tasks:
        cells[(t.stratum, t.language)].append(t)
    rows = []
    for (stratum, language), group in cells.items():
        steps = [len(t.hidden.plan) for t in group]
        rows.append(
            CellStats(
                code=group[0].task_id.split("-")[0],
                stratum=stratum,
                language=language,
                tasks=len(group),
                intents=len({t.hidden.intent for t in group}),
                plan_steps=(min(steps), max(steps)),
                mean_plan_steps=sum(steps) / len(steps),
                distractors=sum(len({r for v in t.hidden.distractors.values() for r in v}) for t in group)
                / len(group),
                destructive_hazards=sum(len(t.hidden.hazards.destructive_routes) for t in group) / len(group),
                injected=sum(1 for t in group if t.hidden.hazards.injected_texts),
                grants=sum(len(t.grants) for t in group),
            )
        )
    return rows


def catalog_stats(catalogs_dir: Path, sizes: tuple[int, ...]) -> dict[int, Counter[str]]:
    """Per size: endpoints by origin, side effect and distractor kind (from provenance.json)."""
    provenance = json.loads((catalogs_dir / "provenance.json").read_text(encoding="utf-8"))["routes"]
    out: dict[int, Counter[str]] = {}
    for size in sizes:
        catalog = load_catalog(catalogs_dir, size)
        counts: Counter[str] = Counter()
        for e in catalog.endpoints:
            p = provenance[e.route_id]
            counts[f"origin:{p['origin']}"] += 1
            counts[f"effect:{e.side_effect}"] += 1
            counts["required"] += int(p["required"])
            for kind in p["distractor_kinds"]:
                counts[f"kind:{kind}"] += 1
        counts["domains"] = len({e.domain for e in catalog.endpoints})
        out[size] = counts
    return out


def load_stats(catalogs_dir: Path, surface_file: Path | None = None) -> list[CellStats]:
    """The cells of the evaluation surface (or of ``surface_file``, a pilot surface)."""
    return cell_stats(load_surface(catalogs_dir) if surface_file is None else load_surface_file(surface_file))


@dataclass(frozen=True)
class Reuse:
    """How much of a surface another surface already uses: distinct gold plans and goal routes."""

    other: str
    plans: tuple[int, int]  # (shared, of this surface's distinct plans)
    goals: tuple[int, int]  # (shared, of this surface's distinct goal routes)


def _plan_key(task: Task) -> tuple[str, ...]:
    return tuple(step.route_id for step in task.hidden.plan)


def reuse_stats(tasks: list[Task], others: dict[str, list[Task]]) -> list[Reuse]:
    """For each other surface: the share of this surface's distinct gold plans (route sequences) and
    goal routes that it also uses."""
    plans = {_plan_key(t) for t in tasks}
    goals = {key[-1] for key in plans}
    out = []
    for name, other in others.items():
        other_plans = {_plan_key(t) for t in other}
        other_goals = {key[-1] for key in other_plans}
        out.append(
            Reuse(name, (len(plans & other_plans), len(plans)), (len(goals & other_goals), len(goals)))
        )
    return out
