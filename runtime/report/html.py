"""``report.html``: one self-contained page per scored run (no network: inline CSS, JS and data).

It holds the verdict and its registered sections (``html_section_registry.py``): a gate forest (inline
SVG drawn here), the diagnostics tables (``explain.diagnostics_tables``) and a trace viewer: every
episode with filters (condition, catalog, stratum, language, pass/fail, failure cause) that opens one
turn by turn (exposure, the retrieval calls' text and ranking, decision, gate audit, result, state).
The stored traces are embedded as gzip-compressed JSON (base64) and unpacked by the browser's own
``DecompressionStream``.
The page's script and style are ``assets/report.js`` and ``assets/report.css`` beside this module.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from runtime.diagnostics.episode_facts import EpisodeFacts
from runtime.report.explain import diagnostics_tables
from runtime.report.figure_cells import (
    FigureInputs,
    difference_panels,
    has_gate_arms,
    recall_conditions,
    recall_panels,
    token_points,
)
from runtime.report.html_section_registry import HtmlContext, html_section, registered_html_sections
from runtime.report.intervals_text import FLAG_MARK, fmt_interval
from runtime.report.numbers import fmt_number
from runtime.report.report_data import CriterionData, ReportData
from runtime.report.svg_figures import (
    difference_scale,
    heatmap_svg,
    recall_scale,
    tokens_vs_pass_svg,
)
from runtime.report.trace_packing import packed_traces
from runtime.run import jsonio

REPORT_HTML_FILE = "report.html"


def write_html(
    out_dir: Path,
    report: ReportData,
    facts: Sequence[EpisodeFacts],
    traces: Sequence[str | None],
    figures: FigureInputs | None = None,
    packed: bytes | None = None,
) -> Path:
    path = out_dir / REPORT_HTML_FILE
    jsonio.write_text_atomic(path, render_html(report, facts, traces, figures, packed))
    return path


def render_html(
    report: ReportData,
    facts: Sequence[EpisodeFacts],
    traces: Sequence[str | None],
    figures: FigureInputs | None = None,
    packed: bytes | None = None,
) -> str:
    """The page (``figures``: the heat maps' rows and axes; ``packed``: ``packed_traces(traces)`` if made)."""
    packed = packed if packed is not None else packed_traces(traces)
    episodes = [
        [f.task_id, f.condition, f.catalog, f.stratum, f.language, f.passed, f.cause or ""] for f in facts
    ]
    gate = report["gate"]
    pilot = report.get("pilot")
    title = f"{'PILOT: ' if pilot else ''}SchemaRouter {report['experiment_id']}: gate {gate['verdict']}"
    meta = _viewer_meta(report)
    css, js = _asset("report.css"), _asset("report.js")
    scope = report["scope"]
    notes = _scope_notes(report)
    verdict_class = {"PASS": "pass", "FAIL": "fail"}.get(gate["verdict"], "na")
    sections = registered_html_sections()
    nav = " ·\n".join(f'<a href="#{s.code}">{html.escape(s.nav)}</a>' for s in sections)
    context = HtmlContext(report, figures)
    parts = "\n".join(
        f'<section id="{s.code}"><h2>{html.escape(s.title)}</h2>\n{s.fn(context)}\n</section>'
        for s in sections
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{css}</style></head>
<body>
<header><h1>{html.escape(title)}</h1>
<p class="verdict {verdict_class}" id="verdict">Gate verdict: {html.escape(gate["verdict"])}
({html.escape(gate["treatment"])} vs {html.escape(gate["comparator"])})</p>
<p>{len(scope["conditions"])} conditions × {len(scope["catalogs"])} catalog sizes × {scope["tasks"]} tasks =
{scope["episodes"]:,} episodes; agent <code>{html.escape(report["agent"])}</code>; freeze root
<code>{html.escape(str(report["freeze_root_hash"]))}</code>.
{notes}
</p>
<nav>{nav}</nav>
</header>
{parts}
<script type="application/json" id="meta">{_script_json(meta)}</script>
<script type="application/json" id="episodes-data">{_script_json(episodes)}</script>
<script type="text/plain" id="traces-data">{base64.b64encode(packed).decode("ascii")}</script>
<script>{js}</script>
</body></html>
"""


def _asset(name: str) -> str:
    """A file of ``assets/`` beside this module (the page's style and script)."""
    return resources.files("runtime.report").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def _viewer_meta(report: ReportData) -> dict[str, list[str] | list[int]]:
    """What the trace viewer's filters offer: the scope's conditions and catalogs, the failure causes."""
    return {
        "conditions": report["scope"]["conditions"],
        "catalogs": report["scope"]["catalogs"],
        "causes": [
            p["code"]
            for p in (report.get("diagnostics") or {}).get("failure_taxonomy", {}).get("precedence", [])
        ],
    }


def _scope_notes(report: ReportData) -> str:
    """The header's warnings: a sub-scope run, a pilot."""
    notes = (
        ""
        if report["scope"]["preregistered"]
        else "<strong>Sub-scope: not the preregistered verdict.</strong>"
    )
    pilot = report.get("pilot")
    if pilot:
        surface = html.escape(pilot["surface"])
        notes += f"<strong>PILOT on the {surface} surface: never scoring of record.</strong>"
    return notes


@html_section("gate", order=10, title="Gate forest", nav="Gate")
def _gate_section(ctx: HtmlContext) -> str:
    report = ctx.report
    return f"""<p>Each criterion's statistic with its 95% interval at every catalog size; the dashed line
is the threshold; green passes, red fails. {FLAG_MARK} marks an interval that is not an honest
interval.</p>
{gate_forest_svg(report)}
{_gate_table(report)}"""


@html_section("breakdowns", order=20, title="Breakdowns (from the stored traces)", nav="Breakdowns")
def _breakdowns_section(ctx: HtmlContext) -> str:
    tables = "\n".join(_table_html(t) for t in diagnostics_tables(ctx.report))
    return tables or "<p>No diagnostics in this report.</p>"


@html_section("traces", order=30, title="Trace viewer")
def _traces_section(ctx: HtmlContext) -> str:
    """The viewer's frame; report.js fills it from the page's embedded episodes and traces."""
    del ctx
    return """<div id="filters"></div>
<p id="count"></p>
<table id="episode-list"><thead><tr><th>task</th><th>condition</th><th>catalog</th><th>stratum</th>
<th>language</th><th>result</th><th>failure cause</th></tr></thead><tbody></tbody></table>
<div id="episode"></div>"""


_NO_ROWS = "<p>Not drawn: this page was rendered without the run's per-task rows.</p>"


@html_section("recall-heatmap", order=12, title="Recall@5 per stratum × language", nav="Recall@5")
def _recall_section(ctx: HtmlContext) -> str:
    if ctx.figures is None:
        return _NO_ROWS
    conditions = recall_conditions(ctx.report)
    if not conditions:
        return "<p>Recall@5 applies to none of the run's conditions.</p>"
    figure = heatmap_svg(
        "recall",
        recall_panels(ctx.report, ctx.figures),
        (ctx.figures.strata, ctx.figures.languages),
        len(ctx.report["scope"]["catalogs"]),
        recall_scale(),
    )
    return f"""<p>Next-required-tool Recall@5 (ratio of sums over the cell's decision points) per stratum ×
language cell, one panel per ranking condition × catalog size; a dash: no decision point.</p>
<div class="scroll">{figure}</div>"""


@html_section("tokens-vs-pass", order=13, title="Schema tokens vs task pass", nav="Tokens vs pass")
def _tokens_section(ctx: HtmlContext) -> str:
    scope = ctx.report["scope"]
    figure = tokens_vs_pass_svg(
        token_points(ctx.report), scope["conditions"], [str(k) for k in scope["catalogs"]]
    )
    return f"""<p>Mean tool-schema tokens per episode (log scale) against task pass, per condition (colour)
and catalog size (marker), with the 95% intervals of both; hover a point for its numbers.</p>
<div class="scroll">{figure}</div>"""


@html_section(
    "difference-heatmap", order=14, title="Paired difference per stratum × language", nav="Differences"
)
def _difference_section(ctx: HtmlContext) -> str:
    if ctx.figures is None:
        return _NO_ROWS
    gate = ctx.report["gate"]
    arms = (gate["treatment"], gate["comparator"])
    if not has_gate_arms(ctx.report):
        return "<p>The run lacks the treatment or the comparator.</p>"
    figure = heatmap_svg(
        "difference",
        difference_panels(ctx.report, ctx.figures),
        (ctx.figures.strata, ctx.figures.languages),
        len(ctx.report["scope"]["catalogs"]),
        difference_scale(arms),
    )
    return f"""<p>{html.escape(arms[0])} − {html.escape(arms[1])} per stratum × language cell (task pass: mean
of the per-task differences; Recall@5: difference of the ratios of sums), one panel per metric × catalog
size, on a diverging scale centred on 0; a dash: a missing arm or no pairs.</p>
<div class="scroll">{figure}</div>"""


def _script_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")


def _table_html(table: tuple[str, list[str], list[list[str]]]) -> str:
    title, header, rows = table
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return (
        f"<h3>{html.escape(title)}</h3><div class='scroll'><table class='breakdown'><thead><tr>{head}</tr>"
        f"</thead><tbody>{body}</tbody></table></div>"
    )


def _gate_table(report: ReportData) -> str:
    rows = []
    for catalog, block in report["gate"]["by_catalog"].items():
        for c in block["criteria"]:
            shown = (
                fmt_interval(c, report) if c["ci_low"] is not None else f"{fmt_number(c['value'])} (exact)"
            )
            mark = {True: "PASS", False: "FAIL", None: "n/a"}[c["passed"]]
            rows.append(
                [
                    catalog,
                    c["code"],
                    c["metric"],
                    c["statistic"],
                    shown,
                    f"{c['operator']} {fmt_number(c['threshold'])}",
                    mark,
                ]
            )
    return _table_html(
        (
            "Gate criteria",
            ["catalog", "code", "metric", "statistic", "point [95% CI]", "threshold", "passed"],
            rows,
        )
    )


_ROW_H, _LABEL_W, _PLOT_W, _PAD = 22, 300, 420, 12


def gate_forest_svg(report: ReportData) -> str:
    """One row per criterion x catalog size on the criterion's own axis (inline SVG, labelled)."""
    by_code: dict[str, list[tuple[str, CriterionData]]] = {}
    for catalog, block in report["gate"]["by_catalog"].items():
        for c in block["criteria"]:
            by_code.setdefault(c["code"], []).append((catalog, c))
    height = sum((len(v) + 2) * _ROW_H for v in by_code.values()) + _PAD
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_LABEL_W + _PLOT_W + 140}" height="{height}" '
        f'role="img" aria-label="gate forest" class="forest">'
    ]
    y = _PAD
    for code, rows in by_code.items():
        y = _forest_criterion(parts, code, rows, y)
    parts.append("</svg>")
    return "".join(parts)


def _forest_axis(rows: list[tuple[str, CriterionData]]) -> tuple[float, float]:
    """The criterion's axis: its threshold, intervals and values, padded by 8% of their span."""
    values = [rows[0][1]["threshold"]]
    for _, c in rows:
        values += [v for v in (c["ci_low"], c["ci_high"], c["value"]) if v is not None]
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    return low - 0.08 * span, high + 0.08 * span


def _forest_criterion(parts: list[str], code: str, rows: list[tuple[str, CriterionData]], y: int) -> int:
    """Append one criterion's title, its catalog rows, threshold and axis ends; return the next row's y."""
    first = rows[0][1]
    low, high = _forest_axis(rows)

    def x(v: float) -> float:
        return _LABEL_W + (v - low) / (high - low) * _PLOT_W

    parts.append(
        f'<text x="4" y="{y + 14}" class="crit">{html.escape(code)} {html.escape(first["metric"])} '
        f"({html.escape(first['statistic'])} {html.escape(first['operator'])} "
        f"{html.escape(fmt_number(first['threshold']))})</text>"
    )
    y += _ROW_H
    tx = x(first["threshold"])
    top = y
    for catalog, c in rows:
        parts += _forest_row(catalog, c, y + _ROW_H / 2, x)
        y += _ROW_H
    parts.append(
        f'<line x1="{tx:.1f}" x2="{tx:.1f}" y1="{top}" y2="{y}" stroke="#555" stroke-dasharray="4 3"/>'
    )
    parts.append(
        f'<text x="{_LABEL_W}" y="{y + 12}" class="axis">{html.escape(fmt_number(low))}</text>'
        f'<text x="{_LABEL_W + _PLOT_W}" y="{y + 12}" class="axis" text-anchor="end">'
        f"{html.escape(fmt_number(high))}</text>"
    )
    return y + _ROW_H


def _forest_row(catalog: str, c: CriterionData, mid: float, x: Callable[[float], float]) -> list[str]:
    """One catalog size of a criterion: its label, interval, point and value with PASS/FAIL."""
    color = {True: "#1a7f37", False: "#cf222e", None: "#9a6700"}[c["passed"]]
    parts = [f'<text x="24" y="{mid + 4}">catalog {html.escape(catalog)}</text>']
    if c["ci_low"] is not None and c["ci_high"] is not None:
        parts.append(
            f'<line x1="{x(c["ci_low"]):.1f}" x2="{x(c["ci_high"]):.1f}" y1="{mid}" y2="{mid}" '
            f'stroke="{color}" stroke-width="3"/>'
        )
    v = c["point"] if c["point"] is not None else c["value"]
    if v is not None:
        parts.append(f'<circle cx="{x(v):.1f}" cy="{mid}" r="4" fill="{color}"/>')
    parts.append(
        f'<text x="{_LABEL_W + _PLOT_W + 8}" y="{mid + 4}" fill="{color}">'
        f"{html.escape(fmt_number(c['value']))} {'PASS' if c['passed'] else 'FAIL'}</text>"
    )
    return parts
