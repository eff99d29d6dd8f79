"""The policy gate: the only way from an agent's tool call to an execution.

Exposure never authorizes execution; only the user's grants in the task do. This package never
imports retrieval (tests/test_policy_gate.py checks it).
"""

from runtime.authorization.allowed_execution import execute_allowed
from runtime.authorization.attempt_audit import AuditRecord, Decision, Reason
from runtime.authorization.execution_gate import Allow, Deny, PolicyGate, grant_covers
from runtime.authorization.integrity import IntegrityReport, recompute_integrity

__all__ = [
    "Allow",
    "AuditRecord",
    "Decision",
    "Deny",
    "IntegrityReport",
    "PolicyGate",
    "Reason",
    "execute_allowed",
    "grant_covers",
    "recompute_integrity",
]
