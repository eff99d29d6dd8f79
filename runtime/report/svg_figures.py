"""report.html's cell figures as inline SVG, drawn in Python from what ``figure_cells.py`` computes (the
same numbers as the PNGs of ``plots.py``): the Recall@5 heat map, tokens vs pass, and the difference
heat map. The gate forest is ``html.gate_forest_svg``.

Every cell carries its value as text (as the PNG prints it: two decimals, signed for a difference, a
dash where there is no data) and in a ``<title>`` tooltip; every point of tokens vs pass has a tooltip
with its two intervals. Output depends on the data only: fixed number formats, scope and spec order,
fixed colour anchors (viridis and RdBu approximated by linear interpolation between five stops), and
every id prefixed by the figure's name, so the page holds each id once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from runtime.report.figure_cells import Panel, TokenPoint

_CELL_W, _CELL_H, _TITLE_H, _GAP, _AXIS_H = 58, 20, 22, 18, 30
_CHAR_W = 7.5  # a generous width per character at 12px (report.css), so no label leaves its svg
_VIRIDIS = ("#440154", "#3b528b", "#21918c", "#5ec962", "#fde725")
_RDBU = ("#67001f", "#d6604d", "#f7f7f7", "#4393c3", "#053061")
_PALETTE = ("#0969da", "#8250df", "#1a7f37", "#bc4c00", "#57606a", "#cf222e")
_MARKERS = ("circle", "square", "triangle", "diamond", "down")


@dataclass(frozen=True)
class HeatScale:
    """How a heat map colours and prints a value."""

    low: float
    high: float
    stops: Sequence[str]
    fmt: Callable[[float], str]
    dark: Callable[[float], bool]  # white text on this value's colour
    label: str  # the colour bar's


def recall_scale() -> HeatScale:
    return HeatScale(
        0.0, 1.0, _VIRIDIS, lambda v: f"{v:.2f}", lambda v: v != v or v < 0.6, "Recall@5 (ratio of sums)"
    )


def difference_scale(arms: tuple[str, str]) -> HeatScale:
    return HeatScale(
        -1.0, 1.0, _RDBU, lambda v: f"{v:+.2f}", lambda v: v == v and abs(v) > 0.6, f"{arms[0]} - {arms[1]}"
    )


def cell_text(value: float, scale: HeatScale) -> str:
    """A cell's printed value: the scale's format, a dash where there is no data (NaN)."""
    return "—" if value != value else scale.fmt(value)


def heatmap_svg(
    name: str,
    panels: Sequence[Panel],
    axes: tuple[Sequence[str], Sequence[str]],
    columns: int,
    scale: HeatScale,
) -> str:
    """Panels of stratum (rows) x language (columns) cells, ``columns`` panels a row, and a colour bar."""
    strata, languages = axes
    left = _text_width(strata) + 12
    panel_w, panel_h = len(languages) * _CELL_W, _TITLE_H + len(strata) * _CELL_H + _AXIS_H
    rows = math.ceil(len(panels) / columns) if panels else 0
    bar_x = left + columns * (panel_w + _GAP) + 8
    width = bar_x + max(_text_width([scale.label]), 60) + 12
    height = max(rows * (panel_h + _GAP), 200) + 8
    parts = [_open(name, width, height, f"{name} heat map: {scale.label} per stratum x language")]
    for index, panel in enumerate(panels):
        x0 = left + (index % columns) * (panel_w + _GAP)
        y0 = (index // columns) * (panel_h + _GAP)
        parts += _panel(panel, (x0, y0), axes, scale, first_column=index % columns == 0)
    parts += _colour_bar(name, bar_x, scale)
    parts.append("</svg>")
    return "".join(parts)


def _panel(
    panel: Panel,
    origin: tuple[float, float],
    axes: tuple[Sequence[str], Sequence[str]],
    scale: HeatScale,
    *,
    first_column: bool,
) -> list[str]:
    x0, y0 = origin
    strata, languages = axes
    parts = [f'<text x="{x0}" y="{y0 + 14}" class="ptitle">{escape(panel.title)}</text>']
    top = y0 + _TITLE_H
    for si, stratum in enumerate(strata):
        y = top + si * _CELL_H
        if first_column:
            parts.append(f'<text x="{x0 - 6}" y="{y + 14}" text-anchor="end">{escape(stratum)}</text>')
        for li, language in enumerate(languages):
            parts.append(_cell(panel, (x0 + li * _CELL_W, y), (stratum, language), panel.grid[si][li], scale))
    bottom = top + len(strata) * _CELL_H
    for li, language in enumerate(languages):
        cx = x0 + li * _CELL_W + _CELL_W / 2
        parts.append(f'<text x="{cx}" y="{bottom + 14}" text-anchor="middle">{escape(language)}</text>')
    return parts


def _cell(
    panel: Panel, at: tuple[float, float], cell: tuple[str, str], value: float, scale: HeatScale
) -> str:
    x, y = at
    text = cell_text(value, scale)
    fill = "#d0d7de" if value != value else colour(value, scale)
    ink = "#ffffff" if scale.dark(value) else "#000000"
    tip = f"{panel.title}; {cell[0]} x {cell[1]}: {text}"
    return (
        f'<g class="cell"><title>{escape(tip)}</title>'
        f'<rect x="{x}" y="{y}" width="{_CELL_W}" height="{_CELL_H}" fill="{fill}" stroke="#ffffff"/>'
        f'<text x="{x + _CELL_W / 2}" y="{y + 14}" text-anchor="middle" fill="{ink}">'
        f"{escape(text)}</text></g>"
    )


def colour(value: float, scale: HeatScale) -> str:
    """``value`` on the scale's colour stops (clipped to its range), as ``#rrggbb``."""
    t = min(1.0, max(0.0, (value - scale.low) / (scale.high - scale.low)))
    position = t * (len(scale.stops) - 1)
    i = min(int(position), len(scale.stops) - 2)
    a, b = _rgb(scale.stops[i]), _rgb(scale.stops[i + 1])
    f = position - i
    return "#" + "".join(f"{round(p + (q - p) * f):02x}" for p, q in zip(a, b, strict=True))


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    return int(hex_colour[1:3], 16), int(hex_colour[3:5], 16), int(hex_colour[5:7], 16)


def _colour_bar(name: str, x: float, scale: HeatScale) -> list[str]:
    """A vertical gradient (high on top) with its two ends and its middle printed, and its label."""
    n = len(scale.stops) - 1
    stops = "".join(
        f'<stop offset="{i / n:.2f}" stop-color="{c}"/>' for i, c in enumerate(reversed(scale.stops))
    )
    gradient = f"{name}-scale"
    mid = (scale.low + scale.high) / 2
    return [
        f'<defs><linearGradient id="{gradient}" x1="0" y1="0" x2="0" y2="1">{stops}</linearGradient></defs>',
        f'<rect x="{x}" y="20" width="14" height="160" fill="url(#{gradient})" stroke="#57606a"/>',
        f'<text x="{x + 18}" y="28" class="axis">{escape(scale.fmt(scale.high))}</text>',
        f'<text x="{x + 18}" y="104" class="axis">{escape(scale.fmt(mid))}</text>',
        f'<text x="{x + 18}" y="180" class="axis">{escape(scale.fmt(scale.low))}</text>',
        f'<text x="{x}" y="198" class="axis">{escape(scale.label)}</text>',
    ]


def _text_width(labels: Sequence[str]) -> int:
    return math.ceil(max((len(s) for s in labels), default=0) * _CHAR_W)


def _open(name: str, width: float, height: float, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(label)}" '
        f'class="figure" id="{name}-figure">'
    )


_PLOT_W, _PLOT_H, _PLOT_LEFT, _PLOT_TOP = 560, 320, 64, 30


@dataclass(frozen=True)
class _LogAxis:
    """The tokens axis: log10 from ``low`` to ``high`` over ``_PLOT_W`` pixels."""

    low: float
    high: float

    def x(self, value: float) -> float:
        return _PLOT_LEFT + (math.log10(value) - self.low) / (self.high - self.low) * _PLOT_W


def tokens_vs_pass_svg(
    points: Sequence[TokenPoint], conditions: Sequence[str], catalogs: Sequence[str]
) -> str:
    """Mean tool-schema tokens (log scale) against task pass (0 to 1), one marker per condition (colour)
    and catalog size (shape), with both 95% intervals as error bars; a legend on the right."""
    legend_w = _text_width([f"{p.condition} ({p.catalog})" for p in points]) + 30
    width, height = _PLOT_LEFT + _PLOT_W + 20 + legend_w, _PLOT_TOP + _PLOT_H + 50
    parts = [_open("tokens", width, height, "tokens vs pass: mean tool-schema tokens against task pass")]
    parts.append(
        f'<text x="{_PLOT_LEFT}" y="18" class="ptitle">Schema tokens vs task pass (95% intervals); '
        "marker = catalog size</text>"
    )
    if not points:
        parts.append(f'<text x="{_PLOT_LEFT}" y="60">no condition has both tokens and task pass</text></svg>')
        return "".join(parts)
    axis = _log_axis(points)
    parts += _token_axes(axis)
    for p in points:
        parts.append(_token_point(p, axis, _PALETTE[conditions.index(p.condition) % len(_PALETTE)], catalogs))
    parts += _token_legend(points, conditions, catalogs, _PLOT_LEFT + _PLOT_W + 20)
    parts.append("</svg>")
    return "".join(parts)


def _log_axis(points: Sequence[TokenPoint]) -> _LogAxis:
    values = [v for p in points for v in p.tokens if v > 0]
    low, high = math.log10(min(values)), math.log10(max(values))
    pad = max(0.08 * (high - low), 0.1)
    return _LogAxis(low - pad, high + pad)


def _y(value: float) -> float:
    return _PLOT_TOP + (1.0 - value) * _PLOT_H


def _token_axes(axis: _LogAxis) -> list[str]:
    """The frame, y grid lines at 0, 0.25 .. 1, x ticks at 1, 2, 5 x 10^k within the axis, axis labels."""
    bottom = _PLOT_TOP + _PLOT_H
    parts = [
        f'<rect x="{_PLOT_LEFT}" y="{_PLOT_TOP}" width="{_PLOT_W}" height="{_PLOT_H}" '
        'fill="none" stroke="#57606a"/>'
    ]
    for i in range(5):
        y = _y(i / 4)
        parts.append(f'<line x1="{_PLOT_LEFT}" x2="{_PLOT_LEFT + _PLOT_W}" y1="{y}" y2="{y}" class="grid"/>')
        parts.append(
            f'<text x="{_PLOT_LEFT - 6}" y="{y + 4}" text-anchor="end" class="axis">{i / 4:.2f}</text>'
        )
    for tick in _log_ticks(axis):
        x = axis.x(tick)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{_PLOT_TOP}" y2="{bottom}" class="grid"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{bottom + 14}" text-anchor="middle" class="axis">{tick:,.0f}</text>'
        )
    parts.append(
        f'<text x="{_PLOT_LEFT + _PLOT_W / 2}" y="{bottom + 34}" text-anchor="middle">'
        "mean tool-schema tokens per episode (log scale)</text>"
    )
    parts.append(
        f'<text x="14" y="{_PLOT_TOP + _PLOT_H / 2}" text-anchor="middle" '
        f'transform="rotate(-90 14 {_PLOT_TOP + _PLOT_H / 2})">task pass</text>'
    )
    return parts


def _log_ticks(axis: _LogAxis) -> list[float]:
    ticks = []
    for k in range(math.floor(axis.low), math.ceil(axis.high) + 1):
        for m in (1, 2, 5):
            value = m * 10.0**k
            if axis.low <= math.log10(value) <= axis.high:
                ticks.append(value)
    return ticks


def _token_point(p: TokenPoint, axis: _LogAxis, colour_: str, catalogs: Sequence[str]) -> str:
    (t_low, t, t_high), (p_low, v, p_high) = p.tokens, p.passed
    x, y = axis.x(t), _y(v)
    tip = (
        f"{p.condition} ({p.catalog}): tokens {t:,.1f} [{t_low:,.1f}, {t_high:,.1f}]; "
        f"task pass {v:.3f} [{p_low:.3f}, {p_high:.3f}]"
    )
    x1, x2, y1, y2 = axis.x(t_low), axis.x(t_high), _y(p_low), _y(p_high)
    bars = (
        f'<line x1="{x1:.1f}" x2="{x2:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="{colour_}"/>'
        f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y1:.1f}" y2="{y2:.1f}" stroke="{colour_}"/>'
    )
    marker = _marker(_MARKERS[catalogs.index(p.catalog) % len(_MARKERS)], x, y, colour_)
    return f'<g class="point"><title>{escape(tip)}</title>{bars}{marker}</g>'


def _marker(shape: str, x: float, y: float, fill: str) -> str:
    r = 5.0
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}"/>'
    if shape == "square":
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}" fill="{fill}"/>'
    corners = {
        "triangle": ((0, -r), (r, r), (-r, r)),
        "diamond": ((0, -r), (r, 0), (0, r), (-r, 0)),
        "down": ((-r, -r), (r, -r), (0, r)),
    }[shape]
    return f'<polygon points="{" ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in corners)}" fill="{fill}"/>'


def _token_legend(
    points: Sequence[TokenPoint], conditions: Sequence[str], catalogs: Sequence[str], x: float
) -> list[str]:
    parts = []
    for i, p in enumerate(points):
        y = _PLOT_TOP + 8 + i * 18
        fill = _PALETTE[conditions.index(p.condition) % len(_PALETTE)]
        parts.append(_marker(_MARKERS[catalogs.index(p.catalog) % len(_MARKERS)], x + 6, y - 4, fill))
        parts.append(f'<text x="{x + 18}" y="{y}">{escape(f"{p.condition} ({p.catalog})")}</text>')
    return parts
