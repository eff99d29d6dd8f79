"""The diagnosis a scoring runs, built from what the scoring already holds: the audit's frozen tasks and
endpoints, the compiled retriever spec (for the key-name probe's indexes) and, when the run is scored
in the process that ran it, the key-free rankings its workers recorded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from runtime.diagnostics.build import Diagnosis, EpisodeSource, diagnose
from runtime.diagnostics.key_names import KeyNameProbe, key_names_not_applicable
from runtime.retrieval.index import RetrievalIndex
from runtime.retrieval.strategy import strategy_of
from runtime.scoring.score import DiagnosisInput, OutcomeAudit
from runtime.spec_model import CompiledSpec
from runtime.spec_model.retriever import RetrieverSpec


def episode_source(audit: OutcomeAudit) -> EpisodeSource | None:
    """``audit`` when it carries the frozen tasks and catalog endpoints (the real engine's
    ``MetricsAudit``), else None (a fake engine's audit: report.json's diagnostics are null)."""
    tasks, routes = getattr(audit, "tasks", None), getattr(audit, "routes", None)
    if isinstance(tasks, Mapping) and isinstance(routes, Mapping) and tasks and routes:
        return cast(EpisodeSource, audit)
    return None


class Diagnoser:
    """Called by scoring with the audited outcomes; keeps the per-episode facts for report.html."""

    def __init__(
        self,
        source: EpisodeSource,
        compiled: CompiledSpec,
        known: Mapping[tuple[int, str], tuple[str, ...]] | None = None,
    ) -> None:
        """``known``: the key-free rankings the run recorded as it went, when it is scored in the process
        that ran it (``runtime/retrieval/key_free.py``); any other text is searched here."""
        self._source, self._compiled, self._known = source, compiled, known
        self.result: Diagnosis | None = None
        self.traces: Sequence[str | None] = ()
        self.probe: KeyNameProbe | None = None

    def __call__(self, inp: DiagnosisInput) -> dict[str, Any]:
        spec = RetrieverSpec.from_compiled(self._compiled)
        not_applicable = key_names_not_applicable(strategy_of(spec)[0])
        if not_applicable is not None:
            self.result = diagnose(inp, self._source, None, not_applicable)
            self.traces = [o.trace_json for o in inp.outcomes]
            return self.result.section
        source = self._source

        def indexes() -> dict[int, RetrievalIndex]:
            return {
                size: RetrievalIndex.build(list(source.routes[size].by_route.values()), spec)
                for size in inp.scope.catalogs
                if size in source.routes
            }

        self.probe = KeyNameProbe(indexes, self._known)
        self.result = diagnose(inp, self._source, self.probe)
        self.traces = [o.trace_json for o in inp.outcomes]
        return self.result.section
