"""``report.md``: the tables a reader wants first, rendered from report.json (and latency.json).

Order: verdict; repeated trials; gate criteria per catalog size; primary metrics per catalog size (point
and 95% CI per condition); paired differences; wall latency (not deterministic); diagnostics; lineage;
the plots. Each is a section registered with ``@report_section`` (orders 10..90); further sections are
modules of ``report/sections/``.
"""

from __future__ import annotations

from typing import Any

from runtime.report.explain import diagnostics_tables, render_markdown_tables
from runtime.report.html import REPORT_HTML_FILE
from runtime.report.intervals_text import FLAG_MARK, fmt_interval
from runtime.report.numbers import fmt_number
from runtime.report.plots import PLOT_FILES
from runtime.report.report_data import CriterionData, ReportData
from runtime.report.section_registry import SectionContext, render_sections, report_section
from runtime.spec_model.identity import Lineage, identity_line

REPORT_MD_FILE = "report.md"


def render_markdown(
    report: ReportData,
    latency: dict[str, Any] | None,
    titles: dict[str, str],
    lineage: Lineage | None = None,
    retrievers: dict[str, str] | None = None,
    plot_files: tuple[str, ...] = (),
) -> str:
    """``titles`` maps metric IDs to their spec titles; ``lineage`` is a successor's parent and deviations;
    ``retrievers`` each condition's strategy when any condition names its own; ``plot_files`` the PNGs
    drawn beside report.md. The sections are the registered ones (``section_registry.py``), by order."""
    context = SectionContext(report, latency, titles, lineage, retrievers, plot_files)
    return "\n".join(render_sections(context))


@report_section("header", order=10)
def _header(ctx: SectionContext) -> list[str]:
    report, lineage = ctx.report, ctx.lineage
    scope, boot, gate = report["scope"], report["bootstrap"], report["gate"]
    pilot = report.get("pilot")
    title = f"SchemaRouter {report['experiment_id']}: gate verdict **{gate['verdict']}**"
    lines = [f"# {'PILOT: ' if pilot else ''}{title}", ""]
    if pilot:
        lines += [
            f"> **PILOT** on the `{pilot['surface']}` surface (sha256 `{pilot['surface_sha256'][:16]}…`"
            f"{', a draft experiment' if pilot['draft'] else ''}): not the evaluation surface, never "
            "scoring of record, never in a lock or a golden file.",
            "",
        ]
    if pilot and pilot.get("full_scope"):
        lines += [f"> PILOT on surface {pilot['surface']}: not the preregistered verdict.", ""]
    elif not scope["preregistered"]:
        lines += ["> Sub-scope run: this is not the preregistered experiment's verdict.", ""]
    lines += [f"- {identity_line(report['experiment_id'], lineage)}."]
    peeks = report.get("evaluation_outcomes_seen_before_freeze")
    if peeks:
        lines += [
            f"- **Evaluation outcomes seen before freeze: {len(peeks)} run(s)**: "
            + ", ".join(f"`{run_id}`" for run_id in peeks)
            + " (spec/peeks.yaml, frozen with the experiment)."
        ]
    pilots = report.get("pilots_before_freeze")
    if pilots:
        counts = ", ".join(f"{surface} {count}" for surface, count in pilots.items())
        lines += [
            f"- **Pilots recorded while a draft: {sum(pilots.values())} run(s)**, per surface: {counts} "
            "(spec/pilots.yaml, frozen with the experiment)."
        ]
    return [
        *lines,
        f"- Scope: {len(scope['conditions'])} conditions x {len(ctx.catalogs)} catalog sizes x "
        f"{scope['tasks']} tasks = {scope['episodes']:,} episodes; agent `{report['agent']}`.",
        f"- Freeze root `{report['freeze_root_hash']}`, source commit "
        f"`{report['source_commit'] or 'none (not a git work tree)'}`.",
        f"- Intervals: stratified task-cluster bootstrap over {boot['cells']} ({scope['cells']} cells), "
        f"{boot['iterations']:,} paired resamples, seed {boot['seed']}, "
        f"{boot['confidence']:.0%} percentile intervals; ratio metrics are ratios of sums.",
        "",
    ]


@report_section("repeated_trials", order=20)
def _repeated_trials_section(ctx: SectionContext) -> list[str]:
    return _repeated_trials(ctx.report)


@report_section("gate", order=30)
def _gate(ctx: SectionContext) -> list[str]:
    report, catalogs = ctx.report, ctx.catalogs
    gate = report["gate"]
    lines = [
        f"## Gate: {gate['treatment']} vs {gate['comparator']}",
        "",
        "PASS needs every criterion at every catalog size.",
        "",
        "| code | criterion | test | " + " | ".join(f"catalog {k}" for k in catalogs) + " |",
        "| --- | --- | --- | " + " | ".join("---" for _ in catalogs) + " |",
    ]
    criteria_rows: dict[str, list[CriterionData]] = {}
    for k in catalogs:
        for c in gate["by_catalog"][k]["criteria"]:
            criteria_rows.setdefault(c["code"], []).append(c)
    for code, per_catalog in criteria_rows.items():
        c0 = per_catalog[0]
        test = f"{c0['statistic']} {c0['operator']} {_num(c0['threshold'])}"
        cells = [_criterion_cell(c, report) for c in per_catalog]
        lines.append(f"| {code} | {c0['title']} | {test} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


@report_section("metrics", order=40)
def _metrics(ctx: SectionContext) -> list[str]:
    return [line for k in ctx.catalogs for line in _metric_table(ctx.report, k, ctx.titles)]


@report_section("differences", order=50)
def _differences(ctx: SectionContext) -> list[str]:
    return _difference_table(ctx.report, ctx.catalogs, ctx.titles)


@report_section("latency", order=60)
def _latency(ctx: SectionContext) -> list[str]:
    return _latency_table(ctx.latency, ctx.catalogs, ctx.report)


@report_section("diagnostics", order=70)
def _diagnostics(ctx: SectionContext) -> list[str]:
    return _diagnostics_section(ctx.report)


@report_section("lineage", order=80)
def _lineage(ctx: SectionContext) -> list[str]:
    return _lineage_section(ctx.lineage)


@report_section("plots", order=90)
def _plots(ctx: SectionContext) -> list[str]:
    """The PNGs drawn beside report.md, embedded; without them, where the figures are and how to draw
    the PNGs (never a link to a file that is not there)."""
    if ctx.plot_files:
        return ["## Plots", ""] + [f"![{name}]({name})" for name in ctx.plot_files] + [""]
    return [
        "## Plots",
        "",
        "The figures (gate forest, Recall@5 heat map, schema tokens vs task pass, difference heat map) are "
        f"drawn in `{REPORT_HTML_FILE}` beside this file. To write them here as PNG files as well "
        f"({', '.join(f'`{name}`' for name in PLOT_FILES)}), score the run again with "
        "`sr score RUN_DIR --plots` (its shards and `--out DIR` for a merged run; add `--plot-svg` for "
        "an SVG beside each), or run it with `sr run --plots`.",
        "",
    ]


def _repeated_trials(report: ReportData) -> list[str]:
    """Template warnings and, for ``--epochs N``, pass^k: nothing for a one-epoch run without warnings."""
    from runtime.report.epochs_text import epoch_lines, warning_lines

    lines = [f"> {w}" for w in warning_lines(report)]
    epochs = epoch_lines(report)
    if epochs:
        lines += ["## Repeated trials", "", *[f"- {e}" for e in epochs]]
    return [*lines, ""] if lines else []


def _spec_rank(metric: str, titles: dict[str, str]) -> int:
    """Metrics in spec/metrics.yaml order (report.json's keys are sorted alphabetically)."""
    order = list(titles)
    return order.index(metric) if metric in order else len(order)


def _criterion_cell(c: CriterionData, report: ReportData) -> str:
    mark = {True: "PASS", False: "FAIL", None: "n/a"}[c["passed"]]
    if c["ci_low"] is None:
        return f"{_num(c['value'])} {mark}"
    return f"{fmt_interval(c, report)} {mark}"


def _metric_table(report: ReportData, catalog: str, titles: dict[str, str]) -> list[str]:
    conditions = report["scope"]["conditions"]
    metric_ids: list[str] = []
    for condition in conditions:
        for metric in report["metrics"][condition][catalog]:
            if metric not in metric_ids:
                metric_ids.append(metric)
    metric_ids.sort(key=lambda m: _spec_rank(m, titles))
    lines = [
        f"## Metrics at catalog size {catalog} (point [95% CI])",
        "",
        "| metric | " + " | ".join(conditions) + " |",
        "| --- | " + " | ".join("---" for _ in conditions) + " |",
    ]
    for metric in metric_ids:
        cells = []
        for condition in conditions:
            interval = report["metrics"][condition][catalog].get(metric)
            cells.append(fmt_interval(interval, report) if interval else "—")
        lines.append(f"| {titles.get(metric, metric)} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _difference_table(report: ReportData, catalogs: list[str], titles: dict[str, str]) -> list[str]:
    diffs = report["differences"]
    if not diffs["by_catalog"]:
        return []
    metrics = sorted(diffs["by_catalog"][catalogs[0]], key=lambda m: _spec_rank(m, titles))
    lines = [
        f"## Paired differences: {diffs['treatment']} - {diffs['comparator']} (point [95% CI])",
        "",
        "| metric | " + " | ".join(f"catalog {k}" for k in catalogs) + " |",
        "| --- | " + " | ".join("---" for _ in catalogs) + " |",
    ]
    for metric in metrics:
        cells = [fmt_interval(diffs["by_catalog"][k][metric], report) for k in catalogs]
        lines.append(f"| {titles.get(metric, metric)} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _latency_table(latency: dict[str, Any] | None, catalogs: list[str], report: ReportData) -> list[str]:
    conditions = report["scope"]["conditions"]
    if not latency or not latency.get("metrics"):
        return []
    lines = [
        "## Wall latency per episode, ms (not deterministic; excluded from report.json and golden files)",
        "",
        "| condition | " + " | ".join(f"catalog {k}" for k in catalogs) + " |",
        "| --- | " + " | ".join("---" for _ in catalogs) + " |",
    ]
    for condition in conditions:
        cells = [fmt_interval(latency["metrics"][condition][k], report) for k in catalogs]
        lines.append(f"| {condition} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _diagnostics_section(report: ReportData) -> list[str]:
    tables = diagnostics_tables(report)
    if not tables:
        return []
    return [
        "## Diagnostics (from the stored traces; `sr explain RUN_DIR`, report.html)",
        "",
        f"{FLAG_MARK} marks an interval that is not an honest interval: zero width because every "
        "contributing cell holds one task, or with undefined resamples.",
        "",
        *render_markdown_tables(tables),
    ]


def _lineage_section(lineage: Lineage | None) -> list[str]:
    """A successor's parent and every declared deviation, the protocol's changes first and apart."""
    if lineage is None:
        return []
    root = f"`{lineage.parent_root}`" if lineage.parent_root else "a draft"
    lines = [
        "## Lineage and declared deviations",
        "",
        f"Successor of {lineage.parent} (root {root}): {lineage.reason}",
        "",
    ]
    for kind, heading in (
        ("protocol", "Changes to the protocol"),
        ("spec", "Other spec changes"),
        ("catalog", "Catalog changes"),
    ):
        group = [d for d in lineage.deviations if d.kind == kind]
        if not group:
            continue
        lines += [f"### {heading} ({len(group)})", "", "| change | rationale |", "| --- | --- |"]
        lines += [f"| `{_cell(d.change)}` | {_cell(d.rationale)} |" for d in group]
        lines.append("")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _num(value: float | None) -> str:
    return fmt_number(value, missing="—")
