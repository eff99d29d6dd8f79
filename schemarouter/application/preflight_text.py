"""The preflight's table as ``sr preflight`` and ``sr freeze`` print it."""

from __future__ import annotations

from runtime.scoring.feasibility import POWER, SIMULATION_SEED, Feasibility
from schemarouter.application.preflight import Preflight


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def _estimate(r: Feasibility) -> str:
    if r.compare == "all_conditions":
        return f"{_num(r.point)} exact"
    return f"{_num(r.point)} [{_num(r.ci_low)}, {_num(r.ci_high)}]"


def preflight_lines(pre: Preflight) -> list[str]:
    lines = [
        f"PILOT preflight: experiment {pre.experiment} on the {pre.surface} surface ({pre.tasks} tasks, "
        f"sha256 {pre.surface_sha256[:16]}…), gate {pre.treatment} vs {pre.comparator}",
        f"  pilot run {pre.run_id} ({pre.run_dir}); never the evaluation surface",
        "",
    ]
    head = ("code", "catalog", "metric", "test", "dev estimate [95% CI]", "bound", "MDD", "verdict")
    table = [head]
    for r in pre.rows:
        table.append(
            (
                r.code,
                str(r.catalog),
                r.metric,
                f"{r.statistic} {r.operator} {r.threshold:g}",
                _estimate(r),
                "none" if r.bound is None else _num(r.bound.value),
                _num(r.mdd),
                r.verdict_text(),
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    lines += [
        "  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in table
    ]
    lines += ["", "Verdicts (worst catalog size):"]
    lines += [f"  {code}: {text}" for code, text in pre.verdicts().items()]
    lines += ["", "Bounds:"]
    seen: set[str] = set()
    for r in pre.rows:
        if r.bound is not None and f"{r.code}{r.catalog}" not in seen:
            seen.add(f"{r.code}{r.catalog}")
            lines.append(f"  {r.code} at {r.catalog}: {_num(r.bound.value)} = {r.bound.basis}")
    if pre.skipped_strategies:
        lines.append("  strategies left out of the Recall@5 bound: " + "; ".join(pre.skipped_strategies))
    lines += [
        "",
        f"MDD: the true treatment - comparator difference at which the gate's statistic passes in "
        f"{POWER:.0%} of simulated surfaces (the experiment's task count per cell, its bootstrap; seed "
        f"preflight.simulation = {SIMULATION_SEED}).",
        f"took {pre.seconds:.1f} s",
    ]
    lines += pre.extra
    return lines
