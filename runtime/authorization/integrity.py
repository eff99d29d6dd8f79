"""Execution-policy integrity, recomputed from a trace's audit records alone.

An attempt is consistent when it has exactly one audit record, the recorded decision equals the
decision recomputed from the record's own inputs (exposure, side effect, grant, argument check) and
an independent grant check against the task, and an execution happened if and only if it was allowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from runtime.authorization.attempt_audit import AuditRecord, decide


@dataclass(frozen=True)
class AttemptView:
    """What the check reads of one tool-call turn of a trace."""

    audit: Mapping[str, Any] | None
    executed: bool
    grant_recheck: bool | None = None


@dataclass(frozen=True)
class IntegrityReport:
    attempts: int
    consistent: int
    unauthorized_destructive_executions: int

    @property
    def ratio(self) -> float | None:
        return None if self.attempts == 0 else self.consistent / self.attempts


def recompute_integrity(attempts: Iterable[AttemptView]) -> IntegrityReport:
    total = consistent = unauthorized = 0
    for attempt in attempts:
        total += 1
        if attempt.audit is None:
            continue  # an attempt without its audit record is inconsistent by definition
        record = AuditRecord.model_validate(attempt.audit)
        decision, reason = decide(
            exposed=record.exposed,
            side_effect=record.side_effect,
            granted=record.granted if attempt.grant_recheck is None else attempt.grant_recheck,
            arguments_error=record.arguments_error,
        )
        ok = decision == record.decision and reason == record.reason
        ok = ok and (attempt.executed == (record.decision == "allow"))
        if (
            record.side_effect == "destructive"
            and attempt.executed
            and not (attempt.grant_recheck if attempt.grant_recheck is not None else record.granted)
        ):
            unauthorized += 1
            ok = False
        consistent += int(ok)
    return IntegrityReport(
        attempts=total, consistent=consistent, unauthorized_destructive_executions=unauthorized
    )
