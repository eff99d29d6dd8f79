"""`sr bench scale` and `sr bench anchor`: what an episode and a model turn cost, printed beside their
targets, never asserted. The engine is loaded from the compiled experiment; heavy imports happen inside
the functions, so `sr --help` does not pay for them.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from schemarouter.errors import SchemaRouterError
from schemarouter.project import ProjectPaths

if TYPE_CHECKING:
    from rich.console import Console

    from schemarouter.runtime.engine import EngineResources
    from schemarouter.runtime.engine.bench import ScaleRow
    from schemarouter.runtime.surface.model import Task

# Default conditions of `sr bench scale`, by exposure policy: top-k retrieval, state refresh, the whole
# catalog (0.14: SR-5-STATIC, SR-5-STATE-AWARE, FULL).
SCALE_POLICIES = ("static_topk", "state_refresh", "full_catalog")
REFERENCE_CATALOGS = (100, 250, 500)
# Targets of the performance issue, printed beside the measured figures.
TURN_TARGET_MS = 0.3
ANCHOR_TARGET_RATIO = 10.0
SR5_GROWTH_TARGET = 2.0
FULL_TURN_TARGET_MS = 50.0
REFERENCE_WALL_TARGET_S = 5.0  # `sr bench run`: the full reference run on 2 workers
REFERENCE_CPU_TARGET_S = 6.0


def parse_sizes(text: str, option: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise SchemaRouterError(f"{option}: expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise SchemaRouterError(f"{option}: expected positive sizes, got {text!r}")
    return values


def _tasks(resources: EngineResources, limit: int | None) -> list[Task]:
    ordered = [resources.tasks[k] for k in sorted(resources.tasks)]
    if limit is None or limit >= len(ordered):
        return ordered
    step = len(ordered) / limit  # spread over strata and languages (task IDs sort by stratum)
    return [ordered[int(i * step)] for i in range(limit)]


def _engine(project: ProjectPaths, sizes: Sequence[int]) -> EngineResources:
    from schemarouter.application.episode import load_engine

    return load_engine(paths=project, catalog_sizes=tuple(sizes))


# ---- sr bench scale ------------------------------------------------------------------------------


def scale_conditions(resources: EngineResources) -> list[str]:
    """The first condition of each SCALE_POLICIES policy in the experiment, in that order."""
    conditions = resources.compiled.conditions
    return [
        next(c.id for c in conditions if c.policy == p)
        for p in SCALE_POLICIES
        if any(c.policy == p for c in conditions)
    ]


def condition_policies(resources: EngineResources) -> dict[str, str]:
    return {c.id: c.policy for c in resources.compiled.conditions}


def bench_scale(
    *, project: ProjectPaths, sizes: Sequence[int], conditions: Sequence[str] | None, tasks: int | None
) -> tuple[list[ScaleRow], dict[str, str]]:
    """Per-episode and per-turn CPU of each condition at each catalog size (synthetic beyond 500)."""
    from schemarouter.application.retrieval_io import catalog_seed
    from schemarouter.runtime.engine.bench import scale_rows

    real_sizes = [s for s in REFERENCE_CATALOGS if s in sizes] or [500]
    resources = _engine(project, sorted({*real_sizes, 500}))
    conditions = list(conditions) if conditions else scale_conditions(resources)
    for condition in conditions:
        resources.condition(condition)
    return scale_rows(
        resources,
        real=resources.catalog(500).catalog.endpoints,
        sizes=sizes,
        conditions=conditions,
        tasks=_tasks(resources, tasks),
        seed=catalog_seed(resources.compiled),
    ), condition_policies(resources)


def print_scale(console: Console, rows: Sequence[ScaleRow], policies: Mapping[str, str]) -> None:
    from rich.table import Table

    base = {r.condition: r for r in rows if r.endpoints == 500}
    table = Table(title="episode cost by catalog size (CPU, median over episodes, after a warm-up pass)")
    for column in (
        "condition",
        "endpoints",
        "build s",
        "episodes",
        "turns",
        "episode ms",
        "turn ms",
        "turn vs 500",
        "trace kB",
    ):
        table.add_column(column, justify="left" if column == "condition" else "right")
    for r in rows:
        ref = base.get(r.condition)
        ratio = f"{r.cost.turn_ms_p50 / ref.cost.turn_ms_p50:.2f}x" if ref and ref.cost.turn_ms_p50 else "-"
        table.add_row(
            r.condition,
            f"{r.endpoints:,}",
            "loaded" if r.build_s is None else f"{r.build_s:.2f}",
            str(r.cost.episodes),
            str(r.cost.turns),
            f"{r.cost.episode_ms_p50:.3f}",
            f"{r.cost.turn_ms_p50:.3f}",
            ratio,
            f"{r.cost.trace_kb_p50:.1f}",
        )
    console.print(table)
    largest = max(r.endpoints for r in rows)
    for r in rows:
        if r.endpoints != largest:
            continue
        ref = base.get(r.condition)
        if (
            policies.get(r.condition) in ("static_topk", "state_refresh")
            and ref is not None
            and largest != 500
            and ref.cost.episode_ms_p50
        ):
            growth = r.cost.episode_ms_p50 / ref.cost.episode_ms_p50
            met = "met" if growth <= SR5_GROWTH_TARGET else "NOT met"
            console.print(
                f"{r.condition}: episode at {largest:,} / at 500 = {growth:.2f}x "
                f"(target <= {SR5_GROWTH_TARGET:g}x: {met})"
            )
        if policies.get(r.condition) == "full_catalog":
            met = "met" if r.cost.turn_ms_p50 <= FULL_TURN_TARGET_MS else "NOT met"
            console.print(
                f"{r.condition} at {largest:,}: {r.cost.turn_ms_p50:.2f} ms per turn "
                f"(target <= {FULL_TURN_TARGET_MS:g} ms: {met})"
            )


# ---- sr bench anchor -----------------------------------------------------------------------------


def bench_anchor(
    *, project: ProjectPaths, tasks: int | None, samples: int, repeats: int, console: Console
) -> dict[str, float]:
    """Our CPU per model turn over the reference scope beside inspect_ai's mockllm, interleaved."""
    from schemarouter.runtime.engine.anchor import inspect_mockllm_cost, inspect_version
    from schemarouter.runtime.engine.bench import measure_episodes

    version = inspect_version()
    if version is None:
        raise SchemaRouterError(
            "sr bench anchor needs inspect_ai, which is not installed. Install the bench extra: "
            "pip install -e '.[bench]'"
        )
    resources = _engine(project, REFERENCE_CATALOGS)
    chosen = _tasks(resources, tasks)
    episodes = [
        (t, c.id, size) for c in resources.compiled.conditions for size in REFERENCE_CATALOGS for t in chosen
    ]
    warm = measure_episodes(resources, episodes)  # warm-up pass + one timed pass
    turns_per_sample = max(1, round(warm.turns / max(1, warm.episodes)))
    queries = [t.visible().query for t in chosen]
    queries = [queries[i % len(queries)] for i in range(samples)]
    inspect_mockllm_cost(queries[: min(5, samples)], turns=turns_per_sample, log_samples=False)  # warm-up
    ours: list[float] = [warm.turn_ms_mean]
    off: list[float] = []
    on: list[float] = []
    anchor_turns = {"off": 0, "on": 0}
    for i in range(repeats):
        if i:
            ours.append(measure_episodes(resources, episodes, warm_up=False).turn_ms_mean)
        cost_off = inspect_mockllm_cost(queries, turns=turns_per_sample, log_samples=False)
        cost_on = inspect_mockllm_cost(queries, turns=turns_per_sample, log_samples=True)
        off.append(cost_off.turn_ms)
        on.append(cost_on.turn_ms)
        anchor_turns = {"off": cost_off.turns, "on": cost_on.turns}
    result = {
        "ours_turn_ms": statistics.median(ours),
        "inspect_logs_off_turn_ms": statistics.median(off),
        "inspect_logs_on_turn_ms": statistics.median(on),
    }
    _print_anchor(
        console, result, warm.episodes, warm.turns, anchor_turns, version, repeats, turns_per_sample
    )
    return result


def _print_anchor(
    console: Console,
    result: dict[str, float],
    episodes: int,
    turns: int,
    anchor_turns: dict[str, int],
    version: str,
    repeats: int,
    turns_per_sample: int,
) -> None:
    from rich.table import Table

    ours = result["ours_turn_ms"]
    table = Table(title=f"CPU per model turn, median of {repeats} interleaved measurement(s)")
    for column in ("harness", "model", "model turns", "CPU ms per turn", "ratio to ours"):
        table.add_column(column, justify="left" if column in ("harness", "model") else "right")
    table.add_row("schemarouter", f"reference agent, {episodes} episodes", str(turns), f"{ours:.4f}", "1.00x")
    for key, label, logs in (
        ("inspect_logs_off_turn_ms", "sample logs off", "off"),
        ("inspect_logs_on_turn_ms", "sample logs on", "on"),
    ):
        value = result[key]
        table.add_row(
            f"inspect_ai {version}",
            f"mockllm/model, {label}, {turns_per_sample} turns/sample",
            str(anchor_turns[logs]),
            f"{value:.4f}",
            f"{value / ours:.1f}x" if ours else "-",
        )
    console.print(table)
    met = "met" if ours <= TURN_TARGET_MS else "NOT met"
    console.print(f"ours: {ours:.4f} ms CPU per model turn (target <= {TURN_TARGET_MS:g} ms: {met})")
    ratio = result["inspect_logs_off_turn_ms"] / ours if ours else float("inf")
    met = "met" if ratio >= ANCHOR_TARGET_RATIO else "NOT met"
    console.print(
        f"inspect_ai mockllm (sample logs off) / ours: {ratio:.1f}x "
        f"(target >= {ANCHOR_TARGET_RATIO:g}x: {met})"
    )
