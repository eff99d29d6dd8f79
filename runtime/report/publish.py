"""Score run directories under the current freeze lock and write the human-facing report beside the JSON.

The one place where a scoring is recorded in spec/freeze.lock (``record_scoring_started``): the first
time a terminal, frozen result set is scored, after every refusal check has passed.

The plots are the slow, optional part (matplotlib's import and three PNGs). A command that prints a
verdict scores with ``plots=False``, starts :func:`start_plots` (a forked child on Linux, so the plots
are drawn while the verdict prints), and waits for it last.
"""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path
from typing import Any

from schemarouter.errors import SchemaRouterError
from schemarouter.project import ProjectPaths
from schemarouter.runtime.report.markdown import REPORT_MD_FILE, render_markdown
from schemarouter.runtime.report.plots import PLOT_FILES, RECALL_METRIC, write_plots
from schemarouter.runtime.run import jsonio
from schemarouter.runtime.run.resultset import load_result_set
from schemarouter.runtime.scoring import ScoreResult, ScoringSpec, score_result_set
from schemarouter.runtime.scoring.per_task import PER_TASK_FILE
from schemarouter.runtime.scoring.report_json import LATENCY_REPORT_FILE, REPORT_FILE
from schemarouter.runtime.scoring.score import OutcomeAudit
from schemarouter.runtime.spec_model import read_lock, record_scoring_started
from schemarouter.runtime.spec_model.identity import Lineage, lineage_of


def score_and_publish(
    run_dirs: list[Path],
    *,
    compiled: Any,
    paths: ProjectPaths,
    out_dir: Path,
    audit: OutcomeAudit,
    plots: bool = True,
) -> ScoreResult:
    """Score ``run_dirs`` (one run, or all shards of one) into ``out_dir`` and render report.md + plots.
    ``audit`` recomputes every episode's metrics from its stored trace first."""
    spec = ScoringSpec.from_compiled(compiled)
    lock = read_lock(paths.lock_file, display=paths.lock_display)
    result = score_result_set(
        load_result_set(run_dirs),
        spec=spec,
        current_freeze_hash=None if lock is None else lock.root.digest,
        out_dir=out_dir,
        audit=audit,
        on_scoring_started=lambda run_id: _record(paths, run_id, compiled, lock),
    )
    render_report(out_dir, spec, plots=plots, lineage=lineage_of(compiled))
    return result


def render_report(
    out_dir: Path, spec: ScoringSpec, *, plots: bool = True, lineage: Lineage | None = None
) -> None:
    """report.md (and the PNG plots) from the JSON files scoring wrote in ``out_dir``."""
    report = jsonio.read_json(out_dir / REPORT_FILE)
    latency_path = out_dir / LATENCY_REPORT_FILE
    latency = jsonio.read_json(latency_path) if latency_path.is_file() else None
    titles = {m.id: m.title for m in spec.metrics}
    jsonio.write_text_atomic(out_dir / REPORT_MD_FILE, render_markdown(report, latency, titles, lineage))
    if plots:
        draw_plots(out_dir, spec)


def draw_plots(out_dir: Path, spec: ScoringSpec) -> list[Path]:
    """The PNG plots from the JSON files scoring wrote in ``out_dir``."""
    recall = spec.metric(RECALL_METRIC)
    assert recall.numerator is not None and recall.denominator is not None
    return write_plots(
        out_dir,
        jsonio.read_json(out_dir / REPORT_FILE),
        jsonio.read_jsonl(out_dir / PER_TASK_FILE),
        strata=spec.strata,
        languages=spec.languages,
        recall_components=(recall.numerator, recall.denominator),
    )


class PlotJob:
    """Plots being drawn for one scored directory; :meth:`wait` returns once they are written."""

    def __init__(self, out_dir: Path, spec: ScoringSpec) -> None:
        self.out_dir, self._spec = out_dir, spec
        self._process: multiprocessing.process.BaseProcess | None = None
        if sys.platform.startswith("linux"):
            # fork: the child has the loaded modules and the spec already; nothing is pickled.
            self._process = multiprocessing.get_context("fork").Process(
                target=_draw_in_child, args=(out_dir, spec), daemon=True
            )
            self._process.start()

    def wait(self) -> list[Path]:
        """Block until the plots are written (drawing them here where no child was started)."""
        if self._process is None:
            return draw_plots(self.out_dir, self._spec)
        self._process.join()
        if self._process.exitcode != 0:
            raise SchemaRouterError(
                f"{self.out_dir}: drawing the plots failed (exit code {self._process.exitcode}); "
                "report.json and report.md are written"
            )
        return [self.out_dir / name for name in PLOT_FILES]


def start_plots(out_dir: Path, compiled: Any) -> PlotJob:
    """Start drawing the plots of a directory that ``score_and_publish(..., plots=False)`` wrote."""
    return PlotJob(out_dir, ScoringSpec.from_compiled(compiled))


def _draw_in_child(out_dir: Path, spec: ScoringSpec) -> None:
    draw_plots(out_dir, spec)


def _record(paths: ProjectPaths, run_id: str, compiled: Any, lock: Any) -> None:
    try:
        record_scoring_started(paths, run_id, compiled=compiled)
    except OSError as err:
        if lock is not None and lock.scoring_started is not None:
            return  # already recorded by an earlier scoring; a read-only project need not change
        raise SchemaRouterError(
            f"{paths.lock_file}: cannot record the first scored run ({err.strerror or err}); "
            "scoring of record needs a writable spec/freeze.lock once"
        ) from None
