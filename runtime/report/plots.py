"""PNG plots of a scored run, drawn with matplotlib's object API on the Agg canvas (no pyplot, no display).

* ``gate_forest.png``: every gate criterion at every catalog size, with its interval and threshold;
* ``recall_heatmap.png``: next-required-tool Recall@5 (ratio of sums) per stratum x language cell, one
  panel per ranking condition x catalog size;
* ``tokens_vs_pass.png``: mean tool-schema tokens against task pass, per condition and catalog size,
  with 95% intervals on both axes.

PNG metadata carries no software version or time, so the files depend on the data only. matplotlib is
imported when the first plot is drawn, never on import of this module, so commands that do not draw
do not pay for it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PLOT_FILES = ("gate_forest.png", "recall_heatmap.png", "tokens_vs_pass.png")
RECALL_METRIC = "next_tool_recall_at_5"
_PASS, _FAIL, _NA = "#1a7f37", "#cf222e", "#8c959f"
_PALETTE = ("#0969da", "#8250df", "#1a7f37", "#bc4c00", "#57606a", "#cf222e")
_MARKERS = ("o", "s", "^", "D", "v")


def write_plots(
    out_dir: Path,
    report: dict[str, Any],
    rows: Sequence[dict[str, Any]],
    *,
    strata: Sequence[str],
    languages: Sequence[str],
    recall_components: tuple[str, str],
    only: Collection[str] | None = None,
) -> list[Path]:
    """Write the plots (``only``: a subset of ``PLOT_FILES``); return the paths written."""
    draw = {
        PLOT_FILES[0]: lambda: _gate_forest(report),
        PLOT_FILES[1]: lambda: _recall_heatmap(report, rows, strata, languages, recall_components),
        PLOT_FILES[2]: lambda: _tokens_vs_pass(report),
    }
    written = []
    for name in PLOT_FILES:
        if only is None or name in only:
            _save(draw[name](), out_dir / name)
            written.append(out_dir / name)
    return written


def preload() -> None:
    """Import matplotlib and its Agg canvas now (a process about to draw can do this while it waits)."""
    _new_figure()
    from matplotlib.backends import backend_agg  # noqa: F401


def _new_figure(**kwargs: Any) -> Figure:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(**kwargs)


def _save(fig: Figure, path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=100, metadata={"Software": None})


def _gate_forest(report: dict[str, Any]) -> Figure:
    gate = report["gate"]
    catalogs = list(gate["by_catalog"])
    codes = [c["code"] for c in gate["by_catalog"][catalogs[0]]["criteria"]]
    fig = _new_figure(figsize=(9, 1.6 * len(codes) + 0.8))
    axes = fig.subplots(len(codes), 1, squeeze=False)[:, 0]
    fig.subplots_adjust(left=0.13, right=0.97, top=1 - 0.75 / fig.get_figheight(), bottom=0.04, hspace=0.75)
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
        ax.set_yticks(range(len(catalogs)), [f"catalog {k}" for k in catalogs])
        ax.set_ylim(len(catalogs) - 0.4, -0.6)  # first catalog size on top
        ax.set_title(
            f"{code}: {first['title']}  [{first['statistic']} {first['operator']} {first['threshold']:g}]",
            fontsize=9,
            loc="left",
        )
        ax.grid(axis="x", alpha=0.3)
    return fig


def _recall_heatmap(
    report: dict[str, Any],
    rows: Sequence[dict[str, Any]],
    strata: Sequence[str],
    languages: Sequence[str],
    components: tuple[str, str],
) -> Figure:
    num_key, den_key = components
    catalogs = [int(k) for k in report["scope"]["catalogs"]]
    conditions = [
        c for c in report["scope"]["conditions"] if RECALL_METRIC in report["metrics"][c][str(catalogs[0])]
    ]
    fig = _new_figure(figsize=(3.6 * len(catalogs) + 2.4, 2.8 * max(1, len(conditions)) + 0.6))
    if not conditions:
        fig.text(0.5, 0.5, "Recall@5 applies to none of the run's conditions", ha="center")
        return fig
    axes = fig.subplots(len(conditions), len(catalogs), squeeze=False)
    fig.subplots_adjust(left=0.14, right=0.88, top=0.95, bottom=0.05, wspace=0.08, hspace=0.3)
    sums: dict[tuple[str, int, str, str], list[float]] = {}
    for row in rows:
        if row.get(den_key) is None:
            continue
        cell = sums.setdefault(
            (row["condition"], row["catalog"], row["stratum"], row["language"]), [0.0, 0.0]
        )
        cell[0] += row[num_key]
        cell[1] += row[den_key]
    image = None
    for i, condition in enumerate(conditions):
        for j, catalog in enumerate(catalogs):
            ax = axes[i][j]
            grid = [
                [_ratio(sums.get((condition, catalog, s, lang), [0.0, 0.0])) for lang in languages]
                for s in strata
            ]
            image = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
            for si, line in enumerate(grid):
                for li, value in enumerate(line):
                    text = "—" if value != value else f"{value:.2f}"
                    dark = value != value or value < 0.6
                    ax.text(
                        li, si, text, ha="center", va="center", fontsize=7, color="white" if dark else "black"
                    )
            ax.set_xticks(range(len(languages)), languages, fontsize=8)
            ax.set_yticks(range(len(strata)), strata if j == 0 else [""] * len(strata), fontsize=7)
            ax.set_title(f"{condition}, catalog {catalog}", fontsize=8)
    if image is not None:
        fig.colorbar(image, cax=fig.add_axes((0.9, 0.25, 0.015, 0.5)), label="Recall@5 (ratio of sums)")
    return fig


def _ratio(pair: list[float]) -> float:
    return pair[0] / pair[1] if pair[1] else float("nan")


def _tokens_vs_pass(report: dict[str, Any]) -> Figure:
    fig = _new_figure(figsize=(10, 5.5))
    ax = fig.subplots()
    fig.subplots_adjust(left=0.08, right=0.7, top=0.92, bottom=0.1)
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
