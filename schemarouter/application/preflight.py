"""``sr preflight``: what the gate can reach, measured before the freeze on the development surface.

Order of a call:

1. refuse what cannot be preflighted, before anything is written: the evaluation surface (a preflight
   is a pilot, never an outcome of record), a project without the named pilot surface, an experiment
   whose catalogs are missing;
2. a pilot of the whole gate scope with the reference agent, through the pilot machinery of
   ``sr run --surface dev`` (``run_experiment``; its run directory goes under ``runs/`` like every
   pilot's, nothing into ``spec/``), scored as a pilot;
3. per criterion and catalog size: the pilot estimate with its interval (the pilot's gate table), the
   protocol's bound (``runtime/scoring/protocol_bounds.py``: the Recall@5 bound replays every
   registered strategy at the decision points whose state carries nothing beyond the query,
   ``preflight_points.py``), the minimum detectable difference and the verdict
   (``runtime/scoring/feasibility.py``);
4. the table (``preflight_text.py``), and the record ``sr freeze`` keeps in the lock.

Hook: ``PREFLIGHT_SECTIONS`` lists extra sections printed after the table. Recorded confirmation
runs (``spec/<id>/confirmation.yaml``, written by ``sr confirm``) are to join it there, for
``sr preflight`` and ``sr freeze`` alike; nothing here reads them yet.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from runtime.core.errors import SchemaRouterError
from runtime.core.progress import Progress, announce
from runtime.scoring.feasibility import (
    SIMULATION_SEED,
    SIMULATIONS,
    Bound,
    Feasibility,
    assess,
    worst,
)
from runtime.scoring.protocol_bounds import (
    BarePoints,
    recovery_ceiling,
    task_pass_ceiling,
)
from runtime.spec_model.preflight_record import PreflightCriterion, PreflightRecord
from schemarouter.project import ProjectPaths

if TYPE_CHECKING:
    from runtime.run.resultset import ResultSet
    from runtime.scoring.spec import ScoringSpec
    from runtime.spec_model import CompiledSpec

PILOT_SURFACE = "dev"
# The conditions whose pass rate caps a treatment's: every required route exposed (found by policy).
CEILING_POLICIES = ("full_catalog", "oracle_required_routes")
RECALL_METRIC = "next_tool_recall_at_5"
PASS_METRIC = "task_pass"
RECOVERY_METRIC = "initial_miss_recovery"

# Extra sections after the table: each returns lines (empty: nothing to show). See the module docs.
PreflightSection = Callable[[ProjectPaths], list[str]]
PREFLIGHT_SECTIONS: list[PreflightSection] = []


@dataclass(frozen=True)
class PreflightRequest:
    """What to preflight on. ``catalogs``/``tasks`` narrow the pilot (tests); None: the gate's scope."""

    surface: str = PILOT_SURFACE
    catalogs: str | None = None
    tasks: str | None = None
    workers: int = 2
    simulations: int = SIMULATIONS


@dataclass
class Preflight:
    """A preflight's figures."""

    experiment: str
    surface: str
    surface_sha256: str
    tasks: int
    run_dir: Path
    run_id: str
    treatment: str
    comparator: str
    rows: list[Feasibility]
    bare: dict[int, BarePoints]
    skipped_strategies: list[str]
    seconds: float
    extra: list[str] = field(default_factory=list)

    def verdicts(self) -> dict[str, str]:
        """Each criterion's verdict over its catalog sizes, with the detail of the worst size."""
        out: dict[str, str] = {}
        for code in dict.fromkeys(r.code for r in self.rows):
            mine = [r for r in self.rows if r.code == code]
            verdict = worst([r.verdict for r in mine])
            shown = next(r for r in mine if r.verdict == verdict)
            sizes = ", ".join(str(r.catalog) for r in mine if r.verdict == verdict)
            out[code] = shown.verdict_text() + (f" at catalog {sizes}" if shown.detail else "")
        return out

    def unreachable(self) -> list[str]:
        return [code for code, text in self.verdicts().items() if text.startswith("unreachable")]

    def record(self, accepted_infeasible: str | None) -> PreflightRecord:
        return PreflightRecord(
            surface=self.surface,
            surface_sha256=self.surface_sha256,
            run_id=self.run_id,
            simulations=SIMULATIONS,
            simulation_seed=SIMULATION_SEED,
            criteria=tuple(
                PreflightCriterion(
                    code=r.code,
                    catalog=r.catalog,
                    metric=r.metric,
                    test=f"{r.statistic} {r.operator} {r.threshold:g}",
                    point=r.point,
                    ci_low=r.ci_low,
                    ci_high=r.ci_high,
                    bound=None if r.bound is None else round(r.bound.value, 6),
                    bound_basis=None if r.bound is None else r.bound.basis,
                    mdd=r.mdd,
                    verdict=r.verdict,
                    detail=r.detail,
                )
                for r in self.rows
            ),
            verdicts=self.verdicts(),
            accepted_infeasible=accepted_infeasible,
        )


def has_pilot_surface(paths: ProjectPaths, surface: str = PILOT_SURFACE) -> bool:
    from compiler.generate.surface_names import named_surfaces

    return surface in named_surfaces(paths.root)


def run_preflight(
    paths: ProjectPaths,
    request: PreflightRequest = PreflightRequest(),
    console: Console | None = None,
    progress: Progress | None = None,
) -> Preflight:
    """Steps 1-3 of the module docs (``progress``: the pilot, the bounds, each simulated surface)."""
    started = time.perf_counter()
    from schemarouter.application.retrieval_io import compiled_experiment
    from schemarouter.application.run import RunDeps, RunRequest, run_experiment

    _refuse_early(paths, request)
    # Compiled once: the catalog check, the pilot and its measurement read the same bundle (a draft is
    # compiled afresh on every call, so three calls cost three compiles and could disagree).
    compiled = compiled_experiment(paths)
    _check_catalogs(paths, compiled)

    quiet = console or Console(file=io.StringIO(), width=200)
    announce(progress, f"pilot run on surface {request.surface}", 0)
    outcome = run_experiment(
        paths,
        RunRequest(
            surface=request.surface,
            catalogs=request.catalogs,
            tasks=request.tasks,
            workers=request.workers,
            plots=False,
            announce_report=False,
        ),
        RunDeps(console=quiet, compiled=compiled),
    )
    if outcome.exit_code != 0 or outcome.report is None:
        raise SchemaRouterError(
            f"{outcome.run_dir}: the preflight's pilot did not finish (sr status {outcome.run_dir})"
        )
    return _measure(paths, compiled, request, outcome.run_dir, outcome.report, started, progress)


def _refuse_early(paths: ProjectPaths, request: PreflightRequest) -> None:
    from schemarouter.application.surfaces import EVALUATION

    if request.surface == EVALUATION:
        raise SchemaRouterError(
            "--surface evaluation: a preflight runs on a pilot surface only; measuring the gate on the "
            "evaluation surface before the freeze would be choosing on outcomes"
        )
    if not has_pilot_surface(paths, request.surface):
        raise SchemaRouterError(
            f"{f'experiment {paths.experiment}' if paths.experiment else 'this project'}: no "
            f"{request.surface} surface in this project "
            f"(spec/_surfaces/{request.surface}/): sr preflight measures the gate on it; nothing was written"
        )


def _check_catalogs(paths: ProjectPaths, compiled: CompiledSpec) -> None:
    for size in compiled.experiment.catalog_sizes:
        path = paths.catalogs_dir / f"catalog_{size}.json"
        if not path.is_file():
            raise SchemaRouterError(
                f"{paths.display(f'catalogs/catalog_{size}.json')}: missing; the preflight runs every "
                f"catalog size (sr generate --experiment {paths.experiment}); nothing was written"
            )


def _measure(
    paths: ProjectPaths,
    compiled: CompiledSpec,
    request: PreflightRequest,
    run_dir: Path,
    report: dict[str, Any],
    started: float,
    progress: Progress | None = None,
) -> Preflight:
    from runtime.run import jsonio, load_result_set
    from runtime.scoring.bootstrap import task_layout
    from runtime.scoring.per_task import PER_TASK_FILE
    from runtime.scoring.spec import ScoringSpec
    from schemarouter.application.preflight_points import bare_points

    spec = ScoringSpec.from_compiled(compiled)
    result_set = load_result_set([run_dir])
    scope = result_set.scope
    rows = jsonio.read_jsonl(run_dir / PER_TASK_FILE)
    layout = task_layout(scope.tasks, strata=spec.strata, languages=spec.languages)
    announce(progress, "protocol bounds (bare decision points)", 0)
    bare, skipped = bare_points(paths, compiled, result_set, spec.gate.treatment)
    ceilings = [c.id for c in compiled.conditions if c.policy in CEILING_POLICIES]
    bounds = _bounds(spec, report, rows, bare, ceilings, list(scope.catalogs))
    feasibility = assess(
        rows,
        spec=spec,
        layout=layout,
        intervals=_gate_intervals(report),
        bounds=bounds,
        catalogs=list(scope.catalogs),
        simulations=request.simulations,
        progress=progress,
    )
    return _preflight(paths, result_set, run_dir, spec, feasibility, (bare, skipped), started)


def _preflight(
    paths: ProjectPaths,
    result_set: ResultSet,
    run_dir: Path,
    spec: ScoringSpec,
    feasibility: list[Feasibility],
    bare: tuple[dict[int, BarePoints], list[str]],
    started: float,
) -> Preflight:
    """The figures of the pilot in ``run_dir``; ``bare``: its bare points and the strategies left out."""
    scope = result_set.scope
    manifest = result_set.dirs[0].manifest
    assert manifest.surface is not None
    return Preflight(
        experiment=str(paths.experiment),
        surface=manifest.surface.name,
        surface_sha256=manifest.surface.sha256,
        tasks=len(scope.tasks),
        run_dir=run_dir,
        run_id=manifest.run_id,
        treatment=spec.gate.treatment,
        comparator=spec.gate.comparator,
        rows=feasibility,
        bare=bare[0],
        skipped_strategies=bare[1],
        seconds=time.perf_counter() - started,
        extra=[line for section in PREFLIGHT_SECTIONS for line in section(paths)],
    )


def _gate_intervals(
    report: Mapping[str, Any],
) -> dict[tuple[str, int], tuple[float | None, float | None, float | None]]:
    """Each criterion's point and interval per catalog size, from the pilot's report.json gate."""
    return {
        (c["code"], int(k)): (c["point"], c["ci_low"], c["ci_high"])
        for k, cell in report["gate"]["by_catalog"].items()
        for c in cell["criteria"]
    }


def _bounds(
    spec: ScoringSpec,
    report: Mapping[str, Any],
    rows: list[dict[str, Any]],
    bare: Mapping[int, BarePoints],
    ceilings: list[str],
    catalogs: list[int],
) -> dict[tuple[str, int], Bound]:
    """The protocol's bound on each criterion's compared quantity, where the protocol sets one."""
    treatment, comparator = spec.gate.treatment, spec.gate.comparator
    recovery = next((m for m in spec.metrics if m.id == RECOVERY_METRIC), None)
    # The treatment's initial misses are the rows its recovery ratio counts in its denominator; a
    # successor that defines the metric otherwise (no denominator) gets no recovery bound, not a guess.
    missed = recovery.denominator if recovery is not None and recovery.aggregate == "ratio" else None
    out: dict[tuple[str, int], Bound] = {}
    for criterion in spec.gate.criteria:
        for k in catalogs:
            ceiling: tuple[float | None, str] = (None, "")
            if criterion.metric == RECALL_METRIC and k in bare:
                b = bare[k]
                ceiling = (
                    b.bound,
                    f"{b.bare}/{b.points} points carry nothing beyond the query, best there "
                    f"{b.best_hits}/{b.bare} ({b.best_label}); the rest at 1",
                )
            elif criterion.metric == PASS_METRIC:
                ceiling = (
                    task_pass_ceiling(rows, ceilings, k, PASS_METRIC),
                    f"best pass rate of {', '.join(ceilings)}",
                )
            elif criterion.metric == RECOVERY_METRIC and missed is not None:
                ceiling = (
                    recovery_ceiling(rows, ceilings, treatment, k, pass_metric=PASS_METRIC, missed=missed),
                    f"pass rate of {', '.join(ceilings)} on the treatment's initial misses",
                )
            value, basis = ceiling
            if value is None:
                continue
            if criterion.compare == "difference":
                other = report["metrics"][comparator][str(k)][criterion.metric]["point"]
                if other is None:
                    continue
                value, basis = value - other, f"{basis}, minus {comparator}'s {other:.4g}"
            out[(criterion.code, k)] = Bound(value=value, basis=basis)
    return out
