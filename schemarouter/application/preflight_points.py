"""The Recall@5 bound's evidence: the treatment's decision points of a preflight pilot that carry nothing
beyond the query, and how well every registered strategy ranks there (application layer).

Read from the pilot's stored traces (the same decision points the metric counts:
``runtime.analysis.pilot.decision_points``), with the required next route taken from the pilot surface's
hidden plan for scoring only. At each bare point every registered strategy is asked for its top 5
through both entry points: ``rank_query`` (the query alone) and ``rank_with_state`` (the query and the
point's state, which holds only the status of the last attempt). The experiment's own strategy runs
with its spec's parameters, the others with their defaults. A strategy that cannot be built here
(an optional extra not installed) is left out and named.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from runtime.core.errors import SchemaRouterError
from runtime.run.resultset import ResultSet
from runtime.scoring.protocol_bounds import (
    BarePoints,
    best_at_bare,
    fact_fields,
    nothing_beyond_query,
)
from runtime.spec_model import CompiledSpec
from schemarouter.project import ProjectPaths

if TYPE_CHECKING:
    from runtime.analysis.pilot import DecisionPoint, StrategyCatalogs
    from runtime.retrieval import RetrieverSpec

DEPTH = 5  # Recall@5: the refresh's k


def bare_points(
    paths: ProjectPaths, compiled: CompiledSpec, result_set: ResultSet, treatment: str
) -> tuple[dict[int, BarePoints], list[str]]:
    """Per catalog size: the treatment's decision points, the bare ones, the best strategy there; and
    the strategies left out (with why)."""
    from runtime.analysis.pilot import decision_points
    from runtime.engine.trace import read_trace
    from runtime.retrieval import RetrieverSpec
    from runtime.run.resultset import read_terminal_outcomes
    from runtime.surface import load_surface_file
    from schemarouter.application.strategy_study import strategy_catalogs
    from schemarouter.application.surfaces import pilot_surface_file

    manifest = result_set.dirs[0].manifest
    if manifest.surface is None:
        raise SchemaRouterError("the preflight reads a pilot's traces only")
    tasks = {t.task_id: t for t in load_surface_file(pilot_surface_file(paths, manifest.surface))}
    facts = fact_fields(compiled.state_contract)
    sizes = list(result_set.scope.catalogs)
    points: dict[int, list[DecisionPoint]] = {k: [] for k in sizes}
    for outcome in read_terminal_outcomes(result_set, with_traces=True):
        key = outcome.key
        if key.condition != treatment or outcome.trace_json is None:
            continue
        trace = read_trace(outcome.trace_json)
        points[key.catalog] += decision_points("pilot", key.condition, key.catalog, tasks[key.task_id], trace)
    bare = {
        k: [p for p in pts if nothing_beyond_query(json.loads(p.state_text), facts)]
        for k, pts in points.items()
    }
    spec = RetrieverSpec.from_compiled(compiled)
    catalogs = strategy_catalogs(paths, spec, sizes)
    hits, skipped = _replay(catalogs, spec, bare, sizes)
    return {k: best_at_bare(len(points[k]), len(bare[k]), hits[k]) for k in sizes}, skipped


def _replay(
    catalogs: StrategyCatalogs,
    spec: RetrieverSpec,
    bare: dict[int, list[DecisionPoint]],
    sizes: Sequence[int],
) -> tuple[dict[int, dict[str, int]], list[str]]:
    from runtime.analysis.pilot import StrategyChoice
    from runtime.retrieval import strategy_codes
    from runtime.retrieval.strategy import strategy_of

    own_code, own_params = strategy_of(spec)
    hits: dict[int, dict[str, int]] = {k: {} for k in sizes}
    skipped: list[str] = []
    for code in strategy_codes():
        choice = StrategyChoice(code, own_params if code == own_code else {}, code)
        try:
            built = {k: catalogs.strategy(choice, k) for k in sizes}
        except (SchemaRouterError, ImportError, OSError) as err:
            skipped.append(f"{code}: {str(err).splitlines()[0]}")
            continue
        for k in sizes:
            strategy = built[k]
            hits[k][f"{code} (query)"] = sum(
                p.needed in strategy.rank_query(p.query, DEPTH).route_ids for p in bare[k]
            )
            hits[k][f"{code} (query+state)"] = sum(
                p.needed in strategy.rank_with_state(p.query, p.state_text, DEPTH).route_ids for p in bare[k]
            )
    return hits, skipped
