"""The diagnosis a scoring runs, built from what the scoring already holds: the audit's frozen tasks and
endpoints, and the compiled retriever spec (for the key-name probe's indexes)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from schemarouter.runtime.diagnostics.build import Diagnosis, EpisodeSource, diagnose
from schemarouter.runtime.diagnostics.key_names import KeyNameProbe, key_names_not_applicable
from schemarouter.runtime.retrieval.index import RetrievalIndex
from schemarouter.runtime.retrieval.spec import RetrieverSpec
from schemarouter.runtime.retrieval.strategy import strategy_of
from schemarouter.runtime.scoring.score import DiagnosisInput


def episode_source(audit: Any) -> EpisodeSource | None:
    """``audit`` when it carries the frozen tasks and catalog endpoints (the real engine's
    ``MetricsAudit``), else None (a fake engine's audit: report.json's diagnostics are null)."""
    tasks, routes = getattr(audit, "tasks", None), getattr(audit, "routes", None)
    if isinstance(tasks, Mapping) and isinstance(routes, Mapping) and tasks and routes:
        return cast(EpisodeSource, audit)
    return None


class Diagnoser:
    """Called by scoring with the audited outcomes; keeps the per-episode facts for report.html."""

    def __init__(self, source: EpisodeSource, compiled: Any) -> None:
        self._source, self._compiled = source, compiled
        self.result: Diagnosis | None = None
        self.traces: Sequence[str | None] = ()

    def __call__(self, inp: DiagnosisInput) -> dict[str, Any]:
        spec = RetrieverSpec.from_compiled(self._compiled)
        not_applicable = key_names_not_applicable(strategy_of(spec)[0])
        if not_applicable is not None:
            self.result = diagnose(inp, self._source, None, not_applicable)
            self.traces = [o.trace_json for o in inp.outcomes]
            return self.result.section
        indexes = {
            size: RetrievalIndex.build(list(self._source.routes[size].by_route.values()), spec)
            for size in inp.scope.catalogs
            if size in self._source.routes
        }
        self.result = diagnose(inp, self._source, KeyNameProbe(indexes))
        self.traces = [o.trace_json for o in inp.outcomes]
        return self.result.section
