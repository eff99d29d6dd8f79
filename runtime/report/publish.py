"""Score run directories under the current freeze lock and write the human-facing report beside the JSON.

The one place where a scoring is recorded in spec/freeze.lock (``record_scoring_started``): the first
time a terminal, frozen result set is scored, after every refusal check has passed.

The PNG plots are the slow part (matplotlib's import and four PNGs), drawn only on request (``plots``;
SVGs beside them with ``svg``): report.html draws the same figures as inline SVG without matplotlib. With
``plots``, ``score_and_publish`` forks the drawing children before scoring (Linux): they import
matplotlib while the parent scores, then draw the figures once report.json is written, while the
caller prints the verdict (``on_scored``).
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Collection, Sequence
from multiprocessing.connection import Connection
from pathlib import Path

from runtime.core.errors import SchemaRouterError
from runtime.diagnostics.source import Diagnoser, episode_source
from runtime.report.figure_cells import RECALL_METRIC, FigureInputs
from runtime.report.html import write_html
from runtime.report.markdown import REPORT_MD_FILE, render_markdown
from runtime.report.plots import PLOT_FILES, preload, write_plots
from runtime.report.report_data import as_report_data
from runtime.report.trace_packing import TracePacker
from runtime.retrieval import RetrieverSpec
from runtime.retrieval.key_free import KeyFreeMatches
from runtime.retrieval.strategy import DEFAULT_STRATEGY
from runtime.run import jsonio
from runtime.run.resultset import load_result_set
from runtime.scoring import ScoreResult, ScoringSpec, score_result_set
from runtime.scoring.per_task import PER_TASK_FILE
from runtime.scoring.report_json import LATENCY_REPORT_FILE, REPORT_FILE
from runtime.scoring.score import OutcomeAudit
from runtime.spec_model import CompiledSpec, read_lock, record_scoring_started
from runtime.spec_model.identity import Lineage, lineage_of
from runtime.spec_model.lock import FreezeLock, LockLocation


def score_and_publish(
    run_dirs: list[Path],
    *,
    compiled: CompiledSpec,
    paths: LockLocation,
    out_dir: Path,
    audit: OutcomeAudit,
    plots: bool = False,
    svg: bool = False,
    key_free: KeyFreeMatches | None = None,
    on_scored: Callable[[ScoreResult], None] | None = None,
) -> ScoreResult:
    """Score ``run_dirs`` (one run, or all shards of one) into ``out_dir``, render report.md and report.html
    (figures as inline SVG); ``plots``: the PNG plots too (``svg``, which implies it: an SVG beside each).

    ``audit`` recomputes every episode's metrics from its stored trace first. ``on_scored`` (e.g.
    printing the verdict) is called once report.json and report.md are written, while the plots are
    still being drawn; this returns when they are written too.
    ``key_free``: the key-free answers the run's workers recorded (``runtime/retrieval/key_free.py``),
    when it is scored in the process that ran it; the diagnostics search any other text themselves.
    """
    spec = ScoringSpec.from_compiled(compiled)
    plots = plots or svg
    drawing = PlotJob(out_dir, spec, svg=svg) if plots else None  # its children import matplotlib meanwhile
    try:
        result = _score_and_render(
            run_dirs,
            spec,
            compiled=compiled,
            paths=paths,
            out_dir=out_dir,
            audit=audit,
            key_free=key_free,
            plot_files=PLOT_FILES if plots else (),
        )
    except BaseException:
        if drawing is not None:
            drawing.cancel()
        raise
    if drawing is not None:
        drawing.go()
    if on_scored is not None:
        on_scored(result)
    if drawing is not None:
        drawing.wait()
    return result


def _write_page(
    out_dir: Path, spec: ScoringSpec, result: ScoreResult, diagnoser: Diagnoser, packer: TracePacker
) -> None:
    """report.html, from the report, the diagnosed episodes and the per-task rows (when diagnosed)."""
    if diagnoser.result is not None:
        report = as_report_data(result.report)
        facts, traces = diagnoser.result.facts, diagnoser.traces
        write_html(out_dir, report, facts, traces, figure_inputs(out_dir, spec), packer.packed(traces))


def own_retrievers(compiled: CompiledSpec) -> dict[str, str] | None:
    """Each retrieving condition's strategy, when any condition names its own; else None (so an
    experiment whose conditions share retriever.yaml's, as 0.14's do, renders report.md as before)."""
    if not any(c.retriever is not None for c in compiled.conditions):
        return None
    spec = RetrieverSpec.from_compiled(compiled)
    default = spec.strategy.code if spec.strategy is not None else DEFAULT_STRATEGY
    return {
        c.id: (c.retriever.code if c.retriever is not None else default)
        for c in compiled.conditions
        if c.retrieval_query != "none"
    }


def _score_and_render(
    run_dirs: list[Path],
    spec: ScoringSpec,
    *,
    compiled: CompiledSpec,
    paths: LockLocation,
    out_dir: Path,
    audit: OutcomeAudit,
    key_free: KeyFreeMatches | None,
    plot_files: Sequence[str],
) -> ScoreResult:
    """The scoring with its diagnosis (each audited trace observed once), then report.md (linking
    ``plot_files``) and, with diagnostics, report.html: everything of ``score_and_publish`` but the
    PNG plots."""
    lock = read_lock(paths.lock_file, display=paths.lock_display)
    source = episode_source(audit)
    diagnoser = Diagnoser(source, compiled, key_free) if source is not None else None
    packer = TracePacker()  # report.html's traces compress beside the bootstrap (trace_packing.py)
    try:
        result = score_result_set(
            load_result_set(run_dirs),
            spec=spec,
            current_freeze_hash=None if lock is None else lock.root.digest,
            out_dir=out_dir,
            audit=audit,
            on_scoring_started=lambda run_id: _record(paths, run_id, compiled, lock),
            diagnose=diagnoser,
            observe=None if diagnoser is None else diagnoser.observe,
            on_audited=None if diagnoser is None else packer.start,
        )
        render_report(
            out_dir,
            spec,
            plot_files=plot_files,
            lineage=lineage_of(compiled),
            retrievers=own_retrievers(compiled),
        )
        if diagnoser is not None:
            _write_page(out_dir, spec, result, diagnoser, packer)
    finally:
        packer.close()
    return result


def render_report(
    out_dir: Path,
    spec: ScoringSpec,
    *,
    plot_files: Sequence[str] = (),
    lineage: Lineage | None = None,
    retrievers: dict[str, str] | None = None,
) -> None:
    """report.md from the JSON files scoring wrote in ``out_dir``; it links ``plot_files``, the PNGs this
    scoring draws there (none: its figures section points at report.html and the command that draws
    them)."""
    report = jsonio.read_json(out_dir / REPORT_FILE)
    latency_path = out_dir / LATENCY_REPORT_FILE
    latency = jsonio.read_json(latency_path) if latency_path.is_file() else None
    titles = {m.id: m.title for m in spec.metrics}
    text = render_markdown(as_report_data(report), latency, titles, lineage, retrievers, tuple(plot_files))
    jsonio.write_text_atomic(out_dir / REPORT_MD_FILE, text)


def figure_inputs(out_dir: Path, spec: ScoringSpec) -> FigureInputs:
    """What the cell figures read beside report.json: per_task.jsonl's rows and the spec's cell axes."""
    recall = spec.metric(RECALL_METRIC)
    assert recall.numerator is not None and recall.denominator is not None
    return FigureInputs(
        jsonio.read_jsonl(out_dir / PER_TASK_FILE),
        spec.strata,
        spec.languages,
        (recall.numerator, recall.denominator),
    )


def draw_plots(
    out_dir: Path, spec: ScoringSpec, only: Collection[str] | None = None, svg: bool = False
) -> list[Path]:
    """The PNG plots (``only``: a subset of PLOT_FILES; ``svg``: an SVG beside each) from the JSON files
    scoring wrote in ``out_dir``."""
    inputs = figure_inputs(out_dir, spec)
    return write_plots(
        out_dir,
        jsonio.read_json(out_dir / REPORT_FILE),
        inputs.rows,
        strata=inputs.strata,
        languages=inputs.languages,
        recall_components=inputs.recall_components,
        only=only,
        svg=svg,
    )


# The heat maps take about as long as the other two together: two children share the drawing.
_SHARES = ((PLOT_FILES[1], PLOT_FILES[3]), (PLOT_FILES[0], PLOT_FILES[2]))


class PlotJob:
    """The plots of one directory, drawn by forked children (Linux; elsewhere, inline by :meth:`wait`).

    The children start at once and import matplotlib while the parent scores; :meth:`go` tells them
    that report.json is written, :meth:`cancel` that it will not be, :meth:`wait` joins them.
    """

    def __init__(self, out_dir: Path, spec: ScoringSpec, *, svg: bool = False) -> None:
        self.out_dir, self._spec, self._svg = out_dir, spec, svg
        self._children: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
        self._started = False
        if sys.platform.startswith("linux"):
            context = multiprocessing.get_context("fork")  # the child has the modules and the spec already
            for share in _SHARES:
                receive, send = context.Pipe(duplex=False)
                # A child also inherits the earlier children's send ends; it closes them, or a cancelled
                # earlier child would wait on it for an end that never comes.
                inherited = [send, *(s for _, s in self._children)]
                child = context.Process(
                    target=_draw_in_child, args=(out_dir, spec, share, svg, receive, inherited)
                )
                child.daemon = True
                child.start()
                receive.close()
                self._children.append((child, send))

    def go(self) -> None:
        """report.json is written: draw."""
        self._started = True
        for _, send in self._children:
            send.send(True)
            send.close()

    def cancel(self) -> None:
        """Nothing will be drawn: the children exit."""
        for _, send in self._children:
            send.close()
        for child, _ in self._children:
            child.join()
        self._children = []

    def wait(self) -> list[Path]:
        """Block until the plots are written (drawing them here where no child was started)."""
        if not self._children:
            return draw_plots(self.out_dir, self._spec, svg=self._svg)
        if not self._started:
            self.go()
        failed = []
        for child, _ in self._children:
            child.join()
            if child.exitcode != 0:
                failed.append(child.exitcode)
        if failed:
            raise SchemaRouterError(
                f"{self.out_dir}: drawing the plots failed (exit code {failed[0]}); "
                "report.json and report.md are written"
            )
        pngs = [self.out_dir / name for name in PLOT_FILES]
        return pngs + ([png.with_suffix(".svg") for png in pngs] if self._svg else [])


def _draw_in_child(
    out_dir: Path,
    spec: ScoringSpec,
    share: tuple[str, ...],
    svg: bool,
    receive: Connection,
    inherited: list[Connection],
) -> None:
    for send in inherited:  # the parent's ends: once the parent closes its copy, recv() sees the end
        send.close()
    preload()
    try:
        receive.recv()
    except EOFError:  # cancelled: scoring failed or was refused
        return
    draw_plots(out_dir, spec, only=share, svg=svg)


def _record(paths: LockLocation, run_id: str, compiled: CompiledSpec, lock: FreezeLock | None) -> None:
    try:
        record_scoring_started(paths, run_id, compiled=compiled)
    except OSError as err:
        if lock is not None and lock.scoring_started is not None:
            return  # already recorded by an earlier scoring; a read-only project need not change
        raise SchemaRouterError(
            f"{paths.lock_file}: cannot record the first scored run ({err.strerror or err}); "
            "scoring of record needs a writable spec/freeze.lock once"
        ) from None
