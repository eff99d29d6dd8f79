"""`sr bench scale` and `sr bench anchor`: what an episode and a model turn cost, printed beside their
targets, never asserted. The engine is loaded from the compiled experiment; heavy imports happen inside
the functions, so `sr --help` does not pay for them.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from runtime.core.errors import SchemaRouterError
from schemarouter.project import ProjectPaths

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from runtime.engine import EngineResources
    from runtime.engine.anchor_tools import ReplayEpisode
    from runtime.engine.bench import ScaleRow
    from runtime.surface.model import Task

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
    from runtime.engine.bench import scale_rows
    from schemarouter.application.retrieval_io import catalog_seed

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
    base = {r.condition: r for r in rows if r.endpoints == 500}
    console.print(_scale_table(rows, base))
    largest = max(r.endpoints for r in rows)
    for r in rows:
        if r.endpoints == largest:
            _print_scale_targets(console, r, base.get(r.condition), policies.get(r.condition), largest)


def _scale_table(rows: Sequence[ScaleRow], base: Mapping[str, ScaleRow]) -> Table:
    """One row per condition and catalog size; ``turn vs 500``: its turn's cost over the 500's."""
    from rich.table import Table

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
    return table


def _print_scale_targets(
    console: Console, r: ScaleRow, ref: ScaleRow | None, policy: str | None, largest: int
) -> None:
    """A row of the largest catalog beside its target: a top-k policy's episode against the 500's, the
    full catalog's turn."""
    if (
        policy in ("static_topk", "state_refresh")
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
    if policy == "full_catalog":
        met = "met" if r.cost.turn_ms_p50 <= FULL_TURN_TARGET_MS else "NOT met"
        console.print(
            f"{r.condition} at {largest:,}: {r.cost.turn_ms_p50:.2f} ms per turn "
            f"(target <= {FULL_TURN_TARGET_MS:g} ms: {met})"
        )


# ---- sr bench anchor -----------------------------------------------------------------------------

TOOL_LOOP_TARGET_RATIO = 40.0  # inspect_ai's tool loop, sample logs off, over ours (issue #29)
# The rows of `sr bench anchor`, in print order: (key, harness label, model label).
ANCHOR_ROWS = (
    ("tools_off", "inspect_ai {v}, tool loop", "mockllm replaying our calls, sample logs off"),
    ("tools_on", "inspect_ai {v}, tool loop", "mockllm replaying our calls, sample logs on"),
    ("bare_off", "inspect_ai {v}, bare loop", "mockllm/model, no tools, sample logs off"),
    ("bare_on", "inspect_ai {v}, bare loop", "mockllm/model, no tools, sample logs on"),
)


def bench_anchor(
    *, project: ProjectPaths, tasks: int | None, samples: int, repeats: int, console: Console
) -> dict[str, list[float]]:
    """Our CPU per model turn over the reference scope beside inspect_ai, interleaved: its tool-calling
    loop replaying ``samples`` of our episodes (the fair anchor), and its bare generate loop."""
    from runtime.engine.anchor import inspect_mockllm_cost, inspect_version
    from runtime.engine.anchor_tools import inspect_tool_loop_cost
    from runtime.engine.bench import measure_episodes

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
    replayed = replay_episodes(resources, episodes, samples)
    queries = [e.query for e in replayed]
    inspect_mockllm_cost(queries[:5], turns=turns_per_sample, log_samples=False)  # warm-up
    inspect_tool_loop_cost(replayed[:5], log_samples=False)
    figures: dict[str, list[float]] = {"ours": [warm.turn_ms_mean]}
    turns: dict[str, int] = {"ours": warm.turns}
    for i in range(repeats):
        if i:
            figures["ours"].append(measure_episodes(resources, episodes, warm_up=False).turn_ms_mean)
        for key in ("tools_off", "tools_on"):
            cost = inspect_tool_loop_cost(replayed, log_samples=key.endswith("on"))
            figures.setdefault(key, []).append(cost.turn_ms)
            turns[key] = cost.turns
        for key in ("bare_off", "bare_on"):
            cost = inspect_mockllm_cost(queries, turns=turns_per_sample, log_samples=key.endswith("on"))
            figures.setdefault(key, []).append(cost.turn_ms)
            turns[key] = cost.turns
    _print_anchor(console, figures, turns, warm.episodes, len(replayed), version, turns_per_sample)
    return figures


def replay_episodes(
    resources: EngineResources, episodes: Sequence[tuple[Task, str, int]], samples: int
) -> list[ReplayEpisode]:
    """``samples`` of ``episodes``, evenly spread (every condition and catalog size), run once each and
    turned into what inspect_ai replays."""
    from runtime.engine.anchor_tools import replay_episode
    from runtime.engine.episode import run_episode

    step = max(1.0, len(episodes) / samples)
    picked = [episodes[int(i * step)] for i in range(min(samples, len(episodes)))]
    schemas: dict[int, dict[str, dict[str, Any]]] = {}
    out = []
    for task, condition, size in picked:
        if size not in schemas:
            schemas[size] = {e.route_id: e.tool_schema() for e in resources.catalog(size).catalog.endpoints}
        trace = run_episode(resources=resources, task=task, condition_id=condition, catalog_size=size)
        out.append(replay_episode(trace, task.visible().query, schemas[size]))
    return out


def _spread(values: Sequence[float]) -> tuple[float, float, float]:
    return min(values), statistics.median(values), max(values)


def _print_anchor(
    console: Console,
    figures: Mapping[str, Sequence[float]],
    turns: Mapping[str, int],
    episodes: int,
    replayed: int,
    version: str,
    turns_per_sample: int,
) -> None:
    ours = statistics.median(figures["ours"])
    console.print(_anchor_table(figures, turns, ours, episodes, replayed, version, turns_per_sample))
    met = "met" if ours <= TURN_TARGET_MS else "NOT met"
    console.print(f"ours: {ours:.4f} ms CPU per model turn (target <= {TURN_TARGET_MS:g} ms: {met})")
    for key, target, what in (
        ("tools_off", TOOL_LOOP_TARGET_RATIO, "tool loop replaying our episodes"),
        ("bare_off", ANCHOR_TARGET_RATIO, "bare generate loop"),
    ):
        ratio = statistics.median(figures[key]) / ours if ours else float("inf")
        met = "met" if ratio >= target else "NOT met"
        console.print(
            f"inspect_ai {what} (sample logs off) / ours: {ratio:.1f}x (target >= {target:g}x: {met})"
        )


def _anchor_table(
    figures: Mapping[str, Sequence[float]],
    turns: Mapping[str, int],
    ours: float,
    episodes: int,
    replayed: int,
    version: str,
    turns_per_sample: int,
) -> Table:
    """Our episode loop's row, then one per ANCHOR_ROWS: min, median and max CPU per model turn."""
    from rich.table import Table

    repeats = len(figures["ours"])
    table = Table(title=f"CPU per model turn, ms: min, median and max of {repeats} interleaved repetition(s)")
    for column in ("harness", "model", "model turns", "min", "median", "max", "median / ours"):
        table.add_column(column, justify="left" if column in ("harness", "model") else "right")
    low, mid, high = _spread(figures["ours"])
    table.add_row(
        "schemarouter, episode loop",
        f"reference agent, {episodes} episodes",
        str(turns["ours"]),
        f"{low:.4f}",
        f"{mid:.4f}",
        f"{high:.4f}",
        "1.00x",
    )
    for key, harness, model in ANCHOR_ROWS:
        low, mid, high = _spread(figures[key])
        shape = (
            f"{replayed} of our episodes" if key.startswith("tools") else f"{turns_per_sample} turns/sample"
        )
        table.add_row(
            harness.format(v=version),
            f"{model}, {shape}",
            str(turns[key]),
            f"{low:.4f}",
            f"{mid:.4f}",
            f"{high:.4f}",
            f"{mid / ours:.1f}x" if ours else "-",
        )
    return table
