"""report.html's figures are inline SVG carrying the PNG figures' numbers; a default run draws no PNG and
never imports matplotlib; report.md links only files that exist (runtime/report/README.md, "Figures")."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from run_support import recorded_project

from compiler import compile_project
from runtime.report import plots
from runtime.report.figure_cells import FigureInputs, recall_panels
from runtime.report.html import render_html
from runtime.report.plots import PLOT_FILES
from runtime.report.svg_figures import colour, recall_scale
from runtime.scoring import ScoringSpec

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

SCOPE = ["--tasks", "S1,S2", "--catalogs", "100,250", "--workers", "1"]
# The installed `sr` entry point's own code path, which reports at exit whether matplotlib was imported.
_SR = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('matplotlib imported:', 'matplotlib' in sys.modules))\n"
    "from schemarouter.cli.app import main\n"
    "sys.argv[0] = 'sr'\n"
    "main()\n"
)
_COMPONENTS = ("recall_hits", "recall_decision_points")


def _sr(root: Path, *args: str) -> str:
    env = {**os.environ, "SR_PROGRESS": "off", "COLUMNS": "160"}
    done = subprocess.run(
        [sys.executable, "-c", _SR, "--project-dir", str(root), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A small-scope run on the default path (no plot option), in its own process."""
    paths = recorded_project(tmp_path_factory.mktemp("figures"))
    run_dir = paths.root / "runs" / "small"
    output = _sr(paths.root, "run", *SCOPE, "--run-dir", str(run_dir))
    report = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in (run_dir / "per_task.jsonl").read_text().splitlines()]
    spec = ScoringSpec.from_compiled(compile_project(paths, write_manifest=False))
    inputs = FigureInputs(rows, spec.strata, spec.languages, _COMPONENTS)  # the cell axes the run drew
    return {"paths": paths, "run_dir": run_dir, "output": output, "report": report, "inputs": inputs}


def _links(markdown: str) -> list[str]:
    """Every local target of a markdown link or image."""
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", markdown) if "://" not in t and not t.startswith("#")]


def test_a_default_run_draws_no_png_and_never_imports_matplotlib(run: dict[str, Any]) -> None:
    assert "matplotlib imported: False" in run["output"]
    run_dir = run["run_dir"]
    assert not [name for name in PLOT_FILES if (run_dir / name).exists()]
    assert not list(run_dir.glob("*.svg"))
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    for figure in ("gate forest", "recall heat map", "tokens vs pass", "difference heat map"):
        assert f'aria-label="{figure}' in page, figure
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "## Plots" in md and "report.html" in md and "sr score RUN_DIR --plots" in md
    assert ".png)" not in md
    assert all((run_dir / target).exists() for target in _links(md)), _links(md)


def test_sr_score_plots_draws_the_pngs_and_report_md_embeds_them(run: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "with-plots"
    _sr(run["paths"].root, "score", str(run["run_dir"]), "--out", str(out), "--plots")  # drawn by children
    for name in PLOT_FILES:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    assert not list(out.glob("*.svg"))  # PNG only unless --plot-svg asks
    md = (out / "report.md").read_text(encoding="utf-8")
    assert _links(md) == list(PLOT_FILES)
    assert all((out / target).is_file() for target in _links(md))
    # The figures of report.html do not depend on whether the PNGs were drawn.
    assert _figure_sections((out / "report.html").read_text(encoding="utf-8")) == _figure_sections(
        (run["run_dir"] / "report.html").read_text(encoding="utf-8")
    )


def _figure_sections(page: str) -> list[str]:
    return re.findall(r'<svg [^>]*class="(?:figure|forest)".*?</svg>', page, flags=re.S)


def _svg(page: str, figure_id: str) -> str:
    match = re.search(rf'<svg [^>]*id="{figure_id}".*?</svg>', page, flags=re.S)
    assert match, figure_id
    return match.group(0)


def _svg_cells(svg: str) -> list[tuple[str, str]]:
    """Each cell's tooltip and printed text, in document order."""
    pattern = r'<g class="cell"><title>([^<]*)</title><rect [^>]*/><text [^>]*>([^<]*)</text></g>'
    return re.findall(pattern, svg)


def _png_cells(name: str, run: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Each panel's title and its cells' printed values, from the PNG figure function's own Figure."""
    inputs = run["inputs"]
    fig = plots.figure(
        name,
        run["report"],
        inputs.rows,
        strata=inputs.strata,
        languages=inputs.languages,
        recall_components=inputs.recall_components,
    )
    panels = []
    for ax in fig.axes:
        if ax.get_title():
            texts = sorted(ax.texts, key=lambda t: (t.get_position()[1], t.get_position()[0]))
            panels.append((ax.get_title(), [t.get_text() for t in texts]))
    return panels


@pytest.mark.parametrize(
    ("png", "figure_id"),
    [("recall_heatmap.png", "recall-figure"), ("difference_heatmap.png", "difference-figure")],
)
def test_every_heat_map_cell_prints_what_the_png_prints(
    run: dict[str, Any], png: str, figure_id: str
) -> None:
    page = (run["run_dir"] / "report.html").read_text(encoding="utf-8")
    cells = _svg_cells(_svg(page, figure_id))
    inputs = run["inputs"]
    per_panel = len(inputs.strata) * len(inputs.languages)
    expected = _png_cells(png, run)
    assert expected and len(cells) == per_panel * len(expected)
    for p, (title, values) in enumerate(expected):
        panel = cells[p * per_panel : (p + 1) * per_panel]
        assert [text for _, text in panel] == values, title
        for (tip, text), (stratum, language) in zip(
            panel, [(s, lang) for s in inputs.strata for lang in inputs.languages], strict=True
        ):
            assert tip == f"{title}; {stratum} x {language}: {text}"
    assert any(text != "—" for _, text in cells)  # the scope has data, not only dashes


def test_tokens_vs_pass_has_one_point_per_legend_entry_of_the_png(run: dict[str, Any]) -> None:
    page = (run["run_dir"] / "report.html").read_text(encoding="utf-8")
    tips = re.findall(r'<g class="point"><title>([^<]*)</title>', _svg(page, "tokens-figure"))
    legend = _png_legend(run)
    assert [tip.split(":", 1)[0] for tip in tips] == legend
    metrics = run["report"]["metrics"]
    for tip in tips:
        condition, catalog = re.fullmatch(r"(.*) \((\d+)\)", tip.split(":", 1)[0]).groups()  # type: ignore[union-attr]
        tokens, passed = (
            metrics[condition][catalog]["tool_schema_tokens"],
            metrics[condition][catalog]["task_pass"],
        )
        assert f"tokens {tokens['point']:,.1f} [" in tip and f"task pass {passed['point']:.3f} [" in tip


def _png_legend(run: dict[str, Any]) -> list[str]:
    inputs = run["inputs"]
    fig = plots.figure(
        "tokens_vs_pass.png",
        run["report"],
        inputs.rows,
        strata=inputs.strata,
        languages=inputs.languages,
        recall_components=inputs.recall_components,
    )
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_the_page_renders_byte_identically_and_escapes_its_labels(run: dict[str, Any]) -> None:
    report, inputs = run["report"], run["inputs"]
    first = render_html(report, [], [], inputs)
    assert render_html(report, [], [], inputs) == first
    hostile = FigureInputs(
        inputs.rows, [*inputs.strata[:-1], "<b>&x"], inputs.languages, inputs.recall_components
    )
    page = render_html(report, [], [], hostile)
    assert "<b>&x" not in page and "&lt;b&gt;&amp;x" in page
    assert 'id="recall-figure"' not in render_html(report, [], [])  # no rows: said, not drawn
    assert page.count('id="recall-scale"') == 1 and page.count('id="difference-scale"') == 1


def test_colour_scale_ends_and_middle() -> None:
    scale = recall_scale()
    assert colour(0.0, scale) == "#440154" and colour(1.0, scale) == "#fde725"
    assert colour(-3.0, scale) == "#440154" and colour(0.5, scale) == "#21918c"


def test_recall_panels_are_ratios_of_sums(run: dict[str, Any]) -> None:
    """A plain loop over the per-task rows gives each cell's Recall@5."""
    report, inputs = run["report"], run["inputs"]
    panels = recall_panels(report, inputs)
    catalogs = [int(k) for k in report["scope"]["catalogs"]]
    conditions = [p.title.split(", catalog")[0] for p in panels[:: len(catalogs)]]
    for i, panel in enumerate(panels):
        condition, catalog = conditions[i // len(catalogs)], catalogs[i % len(catalogs)]
        for si, stratum in enumerate(inputs.strata):
            for li, language in enumerate(inputs.languages):
                rows = [
                    r
                    for r in inputs.rows
                    if (r["condition"], r["catalog"], r["stratum"], r["language"])
                    == (condition, catalog, stratum, language)
                ]
                den = sum(r["recall_decision_points"] for r in rows)
                value = panel.grid[si][li]
                if den:
                    assert value == sum(r["recall_hits"] for r in rows) / den
                else:
                    assert value != value


def test_a_scoring_packs_the_traces_once_on_the_background_thread(
    run: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """trace_packing.TracePacker in the real scoring path: the page takes the background bytes (one
    packing, on its thread, never a second one in place), and report.html is the run's own."""
    import threading

    from typer.testing import CliRunner

    from runtime.report import trace_packing
    from schemarouter.cli.app import app

    calls: list[str] = []
    real = trace_packing.packed_traces

    def counted(traces: Any) -> bytes:
        calls.append(threading.current_thread().name)
        return real(traces)

    monkeypatch.setattr(trace_packing, "packed_traces", counted)
    monkeypatch.setattr("runtime.report.html.packed_traces", counted)
    out = tmp_path / "rescored"
    args = ["--project-dir", str(run["paths"].root), "score", str(run["run_dir"]), "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(calls) == 1 and calls[0].startswith("sr-pack-traces"), calls
    traces = re.compile(r'id="traces-data">([^<]*)<')
    page, before = ((d / "report.html").read_text(encoding="utf-8") for d in (out, run["run_dir"]))
    assert traces.findall(page) == traces.findall(before) != []  # the same stored traces, the same bytes
