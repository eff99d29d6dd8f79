"""The diagnostics of report.json as text: ``sr explain`` (plain tables) and report.md (markdown).

Both read report.json's ``diagnostics`` section only (runtime/diagnostics/README.md); nothing here
computes an outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime.report.intervals_text import fmt_interval
from runtime.report.report_data import ReportData

Table = tuple[str, list[str], list[list[str]]]  # title, header, rows


def diagnostics_tables(
    report: ReportData, *, condition: str | None = None, catalog: int | None = None
) -> list[Table]:
    """Every diagnostics table, filtered to one condition and/or catalog size."""
    diag = report.get("diagnostics")
    if not diag:
        return []
    catalogs = [str(k) for k in report["scope"]["catalogs"] if catalog is None or k == catalog]
    conditions = [c for c in report["scope"]["conditions"] if condition is None or c == condition]
    tables = _recall_tables(report, diag["recall_by_transition"], conditions, catalogs)
    tables.append(_taxonomy_table(diag["failure_taxonomy"], conditions, catalogs))
    anatomy = _anatomy_table(diag["refresh_anatomy"], conditions, catalogs)
    if anatomy is not None:
        tables.append(anatomy)
    tables.append(_flips_table(diag["flips"], condition, catalogs))
    return tables


def _recall_tables(
    report: ReportData, section: dict[str, Any], conditions: list[str], catalogs: list[str]
) -> list[Table]:
    """Recall@5 at decision points by the transition before it, then by stratum and by language (only
    for the conditions that rank)."""
    recall = section["by_condition"]
    kinds = section["transitions"]
    ranked = [c for c in conditions if c in recall]
    if not ranked:
        return []
    rows = []
    for k in catalogs:
        for c in ranked:
            block = recall[c][k]
            rows.append(
                [k, c, fmt_interval(block["all"], report)]
                + [_with_n(block["after"][kind], report) for kind in kinds]
            )
    tables: list[Table] = [
        (
            "Recall@5 at decision points by the transition before it (point [95% CI] hits/points)",
            ["catalog", "condition", "all", *(f"after {kind}" for kind in kinds)],
            rows,
        )
    ]
    for part, order in (("stratum", "strata"), ("language", "languages")):
        present = recall[ranked[0]][catalogs[0]][part] if catalogs else {}
        keys = [k for k in section.get(order, sorted(present)) if k in present]
        rows = [
            [k, c, *(_with_n(recall[c][k][part][key], report) for key in keys)]
            for k in catalogs
            for c in ranked
        ]
        tables.append((f"Recall@5 at decision points by {part}", ["catalog", "condition", *keys], rows))
    return tables


def _taxonomy_table(taxonomy: dict[str, Any], conditions: list[str], catalogs: list[str]) -> Table:
    """One primary cause per failed episode, in precedence order, per condition x catalog."""
    codes = [p["code"] for p in taxonomy["precedence"]]
    rows = []
    for c in conditions:
        for k in catalogs:
            cell = taxonomy["by_condition"][c][k]
            rows.append(
                [
                    c,
                    k,
                    str(cell["failures"]),
                    *(str(cell["causes"][code]) for code in codes),
                    str(cell.get("refresh_dropped_required", "—")),
                ]
            )
    return (
        "Failure taxonomy: one primary cause per failed episode, precedence left to right "
        "(counts sum to failures)",
        ["condition", "catalog", "failures", *codes, "also: refresh dropped a required route"],
        rows,
    )


def _anatomy_table(section: dict[str, Any], conditions: list[str], catalogs: list[str]) -> Table | None:
    """The share of state-aware refresh slots each kind took; None when no condition refreshed."""
    anatomy = section["by_condition"]
    kinds_order: list[str] = section.get("kinds", [])
    rows = []
    for c in conditions:
        for k in catalogs:
            cell = anatomy.get(c, {}).get(k)
            if cell is not None:
                rows.append(
                    [c, k, str(cell["refreshes"]), str(cell["slots"])]
                    + [_anatomy_share(cell, kind) for kind in kinds_order or cell["counts"]]
                )
    if not rows:
        return None
    kinds_header = kinds_order or list(next(iter(next(iter(anatomy.values())).values()))["counts"])
    not_applicable = section.get("not_applicable") or {}
    reasons = sorted(set(not_applicable.values()))
    return (
        "Refresh anatomy: share of state-aware refresh slots taken by (kinds overlap)"
        + "".join(f"; {', '.join(sorted(not_applicable))}: {why}" for why in reasons),
        ["condition", "catalog", "refreshes", "slots", *kinds_header],
        rows,
    )


def _anatomy_share(cell: dict[str, Any], kind: str) -> str:
    if cell["counts"][kind] is None:
        return "n/a"
    return f"{_pct(cell['shares'][kind])} ({cell['counts'][kind]})"


def _flips_table(flips: dict[str, Any], condition: str | None, catalogs: list[str]) -> Table:
    """Per-task flips of task pass between two conditions (the pairs that include ``condition``)."""
    rows = []
    for pair in flips["pairs"]:
        if condition is not None and condition not in (pair["a"], pair["b"]):
            continue
        for k in catalogs:
            cell = pair["by_catalog"][k]
            rows.append(
                [
                    pair["a"],
                    pair["b"],
                    k,
                    str(cell["common_tasks"]),
                    str(len(cell["a_only"])),
                    str(len(cell["b_only"])),
                    _ids(cell["a_only"]),
                    _ids(cell["b_only"]),
                ]
            )
    return (
        "Per-task flips of task pass between two conditions",
        ["a", "b", "catalog", "tasks", "a passes, b fails", "b passes, a fails", "a only", "b only"],
        rows,
    )


def render_text(tables: Sequence[Table]) -> str:
    """Plain fixed-width tables (for the terminal and logs)."""
    out: list[str] = []
    for title, header, rows in tables:
        widths = [max(len(str(x)) for x in column) for column in zip(header, *rows, strict=True)]
        out += [title, "  " + _line(header, widths), "  " + _line(["-" * w for w in widths], widths)]
        out += ["  " + _line(row, widths) for row in rows]
        out.append("")
    return "\n".join(out)


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()


def render_markdown_tables(tables: Sequence[Table]) -> list[str]:
    out: list[str] = []
    for title, header, rows in tables:
        out += [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        out.append("")
    return out


def _with_n(interval: dict[str, Any], report: ReportData) -> str:
    return f"{fmt_interval(interval, report)} {interval['numerator']}/{interval['denominator']}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _ids(ids: list[str], limit: int = 6) -> str:
    if not ids:
        return "—"
    return ", ".join(ids[:limit]) + (f", … {len(ids) - limit} more" if len(ids) > limit else "")
