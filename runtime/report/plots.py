"""PNG plots of a scored run, drawn with matplotlib's object API on the Agg canvas (no pyplot, no display).

* ``gate_forest.png``: every gate criterion at every catalog size, with its interval and threshold;
* ``recall_heatmap.png``: next-required-tool Recall@5 (ratio of sums) per stratum x language cell, one
  panel per ranking condition x catalog size;
* ``tokens_vs_pass.png``: mean tool-schema tokens against task pass, per condition and catalog size,
  with 95% intervals on both axes;
* ``difference_heatmap.png``: the paired difference treatment - comparator per stratum x language
  cell (task pass: mean of per-task differences; Recall@5: difference of the ratios of sums), one
  panel per metric x catalog size, on a diverging scale centred on 0.

Each figure is a PNG; on request (``svg=True``: ``sr run --plot-svg``, ``sr score --plot-svg``) also an
SVG beside it (``<name>.svg``): report.md shows the PNGs and report.html draws its own gate forest from
report.json, so a run does not pay for vector files nobody opens. Layout is matplotlib's constrained
layout, so axis labels, colour bars and legends fit inside the figure (a test checks every text).
PNG and SVG metadata carry no software version or time, and SVG ids are salted with a constant, so
the files depend on the data only. matplotlib is
imported when the first plot is drawn, never on import of this module, so commands that do not draw
do not pay for it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.report.figure_cells import (
    DIFFERENCE_METRICS,
    PASS_METRIC,
    RECALL_METRIC,
    FigureInputs,
    Row,
    difference_panels,
    has_gate_arms,
    recall_conditions,
    recall_panels,
)
from runtime.report.intervals_text import FLAG_MARK, report_flag
from runtime.report.report_data import as_report_data

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PLOT_FILES = ("gate_forest.png", "recall_heatmap.png", "tokens_vs_pass.png", "difference_heatmap.png")
__all__ = ["PASS_METRIC", "PLOT_FILES", "RECALL_METRIC", "figure", "preload", "write_plots"]
_PASS, _FAIL, _NA = "#1a7f37", "#cf222e", "#8c959f"
_PALETTE = ("#0969da", "#8250df", "#1a7f37", "#bc4c00", "#57606a", "#cf222e")
_MARKERS = ("o", "s", "^", "D", "v")


def write_plots(
    out_dir: Path,
    report: dict[str, Any],
    rows: Sequence[Row],
    *,
    strata: Sequence[str],
    languages: Sequence[str],
    recall_components: tuple[str, str],
    only: Collection[str] | None = None,
    svg: bool = False,
) -> list[Path]:
    """Write the plots (``only``: a subset of ``PLOT_FILES``), each as PNG (and SVG with ``svg``);
    return the paths."""
    written = []
    for name in PLOT_FILES:
        if only is None or name in only:
            fig = figure(
                name, report, rows, strata=strata, languages=languages, recall_components=recall_components
            )
            written += _save(fig, out_dir / name, svg=svg)
    return written


def figure(
    name: str,
    report: dict[str, Any],
    rows: Sequence[Row],
    *,
    strata: Sequence[str],
    languages: Sequence[str],
    recall_components: tuple[str, str],
) -> Figure:
    """One of ``PLOT_FILES`` as a matplotlib Figure (not yet saved)."""
    inputs = FigureInputs(rows, strata, languages, recall_components)
    if name == PLOT_FILES[0]:
        return _gate_forest(report)
    if name == PLOT_FILES[1]:
        return _recall_heatmap(report, inputs)
    if name == PLOT_FILES[2]:
        return _tokens_vs_pass(report)
    return _difference_heatmap(report, inputs)


def preload() -> None:
    """Import matplotlib and its Agg canvas now (a process about to draw can do this while it waits)."""
    _new_figure()
    from matplotlib.backends import backend_agg  # noqa: F401


def _new_figure(**kwargs: Any) -> Figure:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "schemarouter"  # stable SVG ids
    from matplotlib.figure import Figure

    return Figure(layout="constrained", **kwargs)


def _save(fig: Figure, path: Path, *, svg: bool) -> list[Path]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=100, metadata={"Software": None})
    if not svg:
        return [path]
    fig.savefig(path.with_suffix(".svg"), format="svg", metadata={"Date": None, "Creator": None})
    return [path, path.with_suffix(".svg")]


def _gate_forest(report: dict[str, Any]) -> Figure:
    gate = report["gate"]
    catalogs = list(gate["by_catalog"])
    codes = [c["code"] for c in gate["by_catalog"][catalogs[0]]["criteria"]]
    fig = _new_figure(figsize=(9, 1.6 * len(codes) + 0.8))
    axes = fig.subplots(len(codes), 1, squeeze=False)[:, 0]
    fig.suptitle(f"Gate {gate['verdict']}: {gate['treatment']} vs {gate['comparator']}", fontweight="bold")
    for ax, code in zip(axes, codes, strict=True):
        per_catalog = [
            next(c for c in gate["by_catalog"][k]["criteria"] if c["code"] == code) for k in catalogs
        ]
        first = per_catalog[0]
        for y, c in enumerate(per_catalog):
            color = {True: _PASS, False: _FAIL, None: _NA}[c["passed"]]
            x = c["point"] if c["point"] is not None else c["value"]
            if c["ci_low"] is not None and c["ci_high"] is not None:
                ax.plot([c["ci_low"], c["ci_high"]], [y, y], color=color, linewidth=2.5)
            if x is not None:
                ax.plot([x], [y], marker="o", color=color, markersize=7)
        ax.axvline(first["threshold"], color="#24292f", linestyle="--", linewidth=1)
        flags = [report_flag(c, report) for c in per_catalog]
        ax.set_yticks(
            range(len(catalogs)),
            [f"catalog {k}{f' {FLAG_MARK}' if f else ''}" for k, f in zip(catalogs, flags, strict=True)],
        )
        ax.set_ylim(len(catalogs) - 0.4, -0.6)  # first catalog size on top
        flagged = next((f for f in flags if f), None)
        ax.set_title(
            f"{code}: {first['title']}  [{first['statistic']} {first['operator']} {first['threshold']:g}]"
            + (f"  {FLAG_MARK} {flagged}" if flagged else ""),
            fontsize=9,
            loc="left",
        )
        ax.grid(axis="x", alpha=0.3)
        what = "treatment - comparator" if first["compare"] == "difference" else first["compare"]
        ax.set_xlabel(
            f"{first['metric']} ({what}): point and 95% interval; the test reads {first['statistic']}; "
            "dashed: threshold",
            fontsize=8,
        )
    return fig


def _recall_heatmap(report: dict[str, Any], inputs: FigureInputs) -> Figure:
    catalogs = [int(k) for k in report["scope"]["catalogs"]]
    data = as_report_data(report)
    conditions = recall_conditions(data)
    fig = _new_figure(figsize=(3.6 * len(catalogs) + 2.4, 2.8 * max(1, len(conditions)) + 0.6))
    if not conditions:
        fig.text(0.5, 0.5, "Recall@5 applies to none of the run's conditions", ha="center")
        return fig
    axes = fig.subplots(len(conditions), len(catalogs), squeeze=False)
    panels = recall_panels(data, inputs)
    image = None
    for i in range(len(conditions)):
        for j in range(len(catalogs)):
            ax, panel = axes[i][j], panels[i * len(catalogs) + j]
            image = ax.imshow(panel.grid, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
            for si, line in enumerate(panel.grid):
                for li, value in enumerate(line):
                    text = "—" if value != value else f"{value:.2f}"
                    dark = value != value or value < 0.6
                    ax.text(
                        li, si, text, ha="center", va="center", fontsize=7, color="white" if dark else "black"
                    )
            _cell_axes(
                ax, inputs.strata, inputs.languages, first_column=j == 0, last_row=i == len(conditions) - 1
            )
            ax.set_title(panel.title, fontsize=8)
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.6, label="Recall@5 (ratio of sums)")
    return fig


def _cell_axes(
    ax: Any, strata: Sequence[str], languages: Sequence[str], *, first_column: bool, last_row: bool
) -> None:
    ax.set_xticks(range(len(languages)), languages, fontsize=8)
    ax.set_yticks(range(len(strata)), strata if first_column else [""] * len(strata), fontsize=7)
    if last_row:
        ax.set_xlabel("language", fontsize=8)
    if first_column:
        ax.set_ylabel("stratum", fontsize=8)


def _difference_heatmap(report: dict[str, Any], inputs: FigureInputs) -> Figure:
    gate = report["gate"]
    treatment, comparator = gate["treatment"], gate["comparator"]
    catalogs = [int(k) for k in report["scope"]["catalogs"]]
    fig = _new_figure(figsize=(3.6 * len(catalogs) + 2.0, 6.4))
    fig.suptitle(f"Paired difference {treatment} - {comparator} per stratum x language", fontsize=10)
    data = as_report_data(report)
    if not has_gate_arms(data):
        fig.text(0.5, 0.5, "the run lacks the treatment or the comparator", ha="center")
        return fig
    panels = difference_panels(data, inputs)
    axes = fig.subplots(len(DIFFERENCE_METRICS), len(catalogs), squeeze=False)
    image = None
    for i in range(len(DIFFERENCE_METRICS)):
        for j in range(len(catalogs)):
            ax, panel = axes[i][j], panels[i * len(catalogs) + j]
            image = ax.imshow(panel.grid, vmin=-1.0, vmax=1.0, cmap="RdBu", aspect="auto")
            _annotate_grid(ax, panel.grid)
            _cell_axes(
                ax,
                inputs.strata,
                inputs.languages,
                first_column=j == 0,
                last_row=i == len(DIFFERENCE_METRICS) - 1,
            )
            ax.set_title(panel.title, fontsize=8)
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.6, label=f"{treatment} - {comparator}")
    return fig


def _annotate_grid(ax: Any, grid: Sequence[Sequence[float]]) -> None:
    """Each cell's value (signed, two decimals; a dash for NaN), white on the dark ends of the scale."""
    for si, line in enumerate(grid):
        for li, value in enumerate(line):
            text = "—" if value != value else f"{value:+.2f}"
            ax.text(
                li,
                si,
                text,
                ha="center",
                va="center",
                fontsize=7,
                color="white" if value == value and abs(value) > 0.6 else "black",
            )


def _tokens_vs_pass(report: dict[str, Any]) -> Figure:
    fig = _new_figure(figsize=(10, 5.5))
    ax = fig.subplots()
    catalogs = [str(k) for k in report["scope"]["catalogs"]]
    for ci, condition in enumerate(report["scope"]["conditions"]):
        color = _PALETTE[ci % len(_PALETTE)]
        for ki, catalog in enumerate(catalogs):
            block = report["metrics"][condition][catalog]
            tokens, passed = block.get("tool_schema_tokens"), block.get("task_pass")
            if not tokens or not passed or tokens["point"] is None or passed["point"] is None:
                continue
            x, y = tokens["point"], passed["point"]
            xerr = [
                [x - (tokens["ci_low"] if tokens["ci_low"] is not None else x)],
                [(tokens["ci_high"] or x) - x],
            ]
            yerr = [
                [y - (passed["ci_low"] if passed["ci_low"] is not None else y)],
                [(passed["ci_high"] or y) - y],
            ]
            ax.errorbar(
                [x],
                [y],
                xerr=xerr,
                yerr=yerr,
                fmt=_MARKERS[ki % len(_MARKERS)],
                color=color,
                capsize=3,
                label=f"{condition} ({catalog})",
            )
    ax.set_xscale("log")
    ax.set_xlabel("mean tool-schema tokens per episode (log scale)")
    ax.set_ylabel("task pass")
    ax.set_title("Schema tokens vs task pass (95% intervals); marker = catalog size")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig
