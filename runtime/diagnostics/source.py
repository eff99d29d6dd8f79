"""The diagnosis a scoring runs, built from what the scoring already holds: the audit's frozen tasks and
endpoints, the compiled retriever spec (for the key-name probe's indexes) and, when the run is scored
in the process that ran it, the key-free rankings its workers recorded.

Scoring hands each audited trace to ``Diagnoser.observe`` as the audit goes, so each stored trace is
parsed once per scoring and only its small per-episode facts are kept (a single streaming pass: memory
grows with the facts, never with a second copy of the traces). The facts are used only when they were
derived from exactly the outcomes the diagnosis is given, in the same order, under the same Recall@5
conditions; otherwise, as without an observing scoring, each stored trace is read again here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from runtime.diagnostics.build import (
    Diagnosis,
    EpisodeSource,
    diagnose,
    recall_conditions,
    trace_facts,
)
from runtime.diagnostics.episode_facts import EpisodeFacts
from runtime.diagnostics.key_names import KeyNameProbe, key_names_not_applicable
from runtime.engine.trace import EpisodeTrace
from runtime.retrieval.index import RetrievalIndex
from runtime.retrieval.key_free import KeyFreeMatches
from runtime.retrieval.strategy import strategy_of
from runtime.run.scope import EpisodeKey
from runtime.run.store import EpisodeOutcome
from runtime.scoring.score import DiagnosisInput, OutcomeAudit
from runtime.scoring.spec import ScoringSpec
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
        known: KeyFreeMatches | None = None,
    ) -> None:
        """``known``: the key-free answers the run recorded as it went, when it is scored in the process
        that ran it (``runtime/retrieval/key_free.py``); any other refresh is searched here."""
        self._source, self._compiled, self._known = source, compiled, known
        self.result: Diagnosis | None = None
        self.traces: Sequence[str | None] = ()
        self.probe: KeyNameProbe | None = None
        self._recall_applies = recall_conditions(ScoringSpec.from_compiled(compiled))
        self._observed: list[EpisodeKey] = []
        self._facts: list[EpisodeFacts] | None = []  # None: an observed trace gave no facts

    def observe(self, outcome: EpisodeOutcome, trace: EpisodeTrace) -> None:
        """Scoring's ``TraceObserver``: the facts of an audited outcome, from the trace the audit read.
        A trace whose facts cannot be derived stops the observing: the diagnosis then reads every
        stored trace itself and fails where, and as, it always did."""
        if self._facts is None:
            return
        try:
            self._facts.append(trace_facts(trace, self._source, self._recall_applies))
        except Exception:  # whatever it is, the reading path below meets it again, where it always did
            self._facts = None
            return
        self._observed.append(outcome.key)

    def _observed_facts(self, inp: DiagnosisInput) -> list[EpisodeFacts] | None:
        """The observed facts when they are those of exactly ``inp``'s outcomes, in order, under its
        Recall@5 conditions (else None: the diagnosis reads the stored traces)."""
        if self._facts is None or recall_conditions(inp.spec) != self._recall_applies:
            return None
        if len(self._observed) != len(inp.outcomes):
            return None
        if any(key != outcome.key for key, outcome in zip(self._observed, inp.outcomes, strict=True)):
            return None
        return self._facts

    def __call__(self, inp: DiagnosisInput) -> dict[str, Any]:
        spec = RetrieverSpec.from_compiled(self._compiled)
        not_applicable = key_names_not_applicable(strategy_of(spec)[0])
        facts = self._observed_facts(inp)
        if not_applicable is not None:
            self.result = diagnose(inp, self._source, None, not_applicable, facts=facts)
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
        self.result = diagnose(inp, self._source, self.probe, facts=facts)
        self.traces = [o.trace_json for o in inp.outcomes]
        return self.result.section
