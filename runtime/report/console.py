"""Terminal output of the run commands (rich): the verdict with its criteria table, and run status.

``status_lines`` and ``print_status`` show progress and infrastructure events only; they are handed a
ResultSet, which holds keys and counts, never outcomes.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.table import Table

from runtime.report.intervals_text import FLAG_MARK, report_flag
from runtime.report.numbers import fmt_number
from runtime.report.report_data import CriterionData, ReportData

if TYPE_CHECKING:  # imported for the annotation only: `sr --help` does not load the run package
    from runtime.run.resultset import ResultSet

LOG_WIDTH = 144
GATE_COLUMNS = (
    "catalog",
    "code",
    "metric",
    "statistic",
    "value",
    "estimate",
    "95% CI",
    "threshold",
    "passed",
)


def make_console(log_width: int = LOG_WIDTH) -> Console:
    """A console for the commands: a terminal's own width, else ``log_width`` columns (logs and pipes do
    not wrap, so a table keeps its natural width instead of folding into rich's default 80)."""
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=log_width)
    return console


def pilot_line(surface: str) -> str:
    """The PILOT mark every pilot prints: not the evaluation surface, never scoring of record."""
    return (
        f"PILOT: surface {surface}, not the evaluation surface. Never scoring of record: no lock "
        "records it and no golden file pins it."
    )


def scope_note(report: ReportData) -> str:
    """What the verdict is not: a full-scope pilot is the full scope on another surface (``PILOT on
    surface dev: not the preregistered verdict``); any other scope short of the preregistered one is a
    sub-scope. Empty for the preregistered experiment."""
    pilot = report.get("pilot")
    if pilot and pilot.get("full_scope"):
        return f" (PILOT on surface {pilot['surface']}: not the preregistered verdict)"
    return "" if report["gate"]["preregistered_scope"] else " (sub-scope: not the preregistered verdict)"


def verdict_line(report: ReportData) -> str:
    """``Gate verdict: FAIL`` with its scope note, as plain text (pilots.yaml records this line)."""
    return f"Gate verdict: {report['gate']['verdict']}{scope_note(report)}"


def print_verdict(console: Console, report: ReportData, *, identity: str | None = None) -> None:
    """The gate verdict and a short criteria table: code, metric, statistic, value, estimate, CI,
    threshold, passed. ``value`` is what the criterion tests (``ci_low`` is the interval's lower bound),
    ``estimate`` the point estimate the interval is around (for G5 and G6, exact, the same number).

    ``identity``: the experiment and its lineage (``identity_line``), printed above the table."""
    gate = report["gate"]
    pilot = report.get("pilot")
    if pilot:
        console.print(pilot_line(pilot["surface"]), markup=False, highlight=False)
    console.print(identity or f"Experiment {report['experiment_id']}")
    peeks = report.get("evaluation_outcomes_seen_before_freeze")
    if peeks:
        console.print(
            f"Evaluation outcomes seen before freeze: {len(peeks)} run(s): {', '.join(peeks)}",
            markup=False,
            highlight=False,
        )
    style = {"PASS": "bold green", "FAIL": "bold red"}.get(gate["verdict"], "bold yellow")
    table = Table(
        title=f"Gate: {gate['treatment']} vs {gate['comparator']}", title_justify="left", box=box.SIMPLE_HEAD
    )
    for column in GATE_COLUMNS:
        table.add_column(column, justify="right" if column in ("value", "estimate", "threshold") else "left")
    for catalog, block in gate["by_catalog"].items():
        for c in block["criteria"]:
            ci = "exact" if c["ci_low"] is None and c["value"] is not None else _ci(c, report)
            passed = {True: "[green]yes[/]", False: "[red]no[/]", None: "[yellow]n/a[/]"}[c["passed"]]
            table.add_row(
                catalog,
                c["code"],
                c["metric"],
                c["statistic"],
                fmt_number(c["value"]),
                fmt_number(c.get("point")),
                ci,
                f"{c['operator']} {fmt_number(c['threshold'])}",
                passed,
            )
        table.add_section()
    console.print(table)
    console.print(f"Gate verdict: [{style}]{gate['verdict']}[/]{scope_note(report)}")
    from runtime.report.epochs_text import epoch_lines, warning_lines

    for line in [*warning_lines(report), *epoch_lines(report)]:
        console.print(line, markup=False, highlight=False, soft_wrap=True)  # one line per cell, in logs too


def status_lines(result_set: ResultSet) -> list[str]:
    """Manifest facts, progress counts and infrastructure events of a result set."""
    lines = []
    for d in result_set.dirs:
        m = d.manifest
        if m.surface is not None:
            lines.append(pilot_line(m.surface.name))
        lines += [
            f"run {m.run_id}  ({d.run_dir})",
            f"  created {m.created_at.isoformat()}  agent {m.agent.name}  shard {m.shard.label()}",
            f"  freeze root {m.freeze.root_hash or 'none (draft)'}  source {m.source.git_commit}"
            f"{' (dirty)' if m.source.dirty else ''}",
            f"  sessions: {len(m.sessions)}"
            + "".join(
                f"\n    #{s.number} {s.started_at.isoformat()} -> "
                f"{s.finished_at.isoformat() if s.finished_at else 'did not finish'}"
                f"  committed {s.committed if s.committed is not None else '?'}"
                f"  events {s.infrastructure_events if s.infrastructure_events is not None else '?'}"
                + (f"  executor {s.executor}" if s.executor else "")
                for s in m.sessions
            ),
        ]
    lines += result_set.progress_lines()
    lines.append(f"terminal: {'yes' if result_set.terminal else 'no'}")
    for d in result_set.dirs:
        unresolved = d.unresolved
        if unresolved:
            lines.append(
                f"unresolved infrastructure events in {d.manifest.run_id} (re-run them with --resume):"
            )
            for e in unresolved[:30]:
                where = e.key.label() if e.key else "(no episode)"
                lines.append(
                    f"  #{e.id} session {e.session} {e.kind} {e.error_type}: {where}: {e.message[:160]}"
                )
            if len(unresolved) > 30:
                lines.append(f"  ... and {len(unresolved) - 30} more")
        resolved = len(d.events) - len(unresolved)
        if resolved:
            lines.append(f"resolved infrastructure events in {d.manifest.run_id}: {resolved}")
    return lines


def _ci(c: CriterionData, report: ReportData) -> str:
    if c["ci_low"] is None:
        return "undefined"
    flag = report_flag(c, report)
    text = f"[{fmt_number(c['ci_low'])}, {fmt_number(c['ci_high'])}]"
    return f"{text} {FLAG_MARK} {flag}" if flag else text
