"""The policy gate: exposure never authorizes execution; only the task's grants do."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import pytest

from runtime.authorization import Allow, Deny, PolicyGate, grant_covers, recompute_integrity
from runtime.authorization.attempt_audit import decide
from runtime.authorization.integrity import AttemptView
from runtime.catalog.model import Endpoint, FieldSpec


@dataclass(frozen=True)
class G:
    route_id: str
    arguments: dict[str, Any] | None = None


def _endpoint(route_id: str, side_effect: str = "read") -> Endpoint:
    return Endpoint(
        route_id=route_id,
        name=route_id.replace(".", "_"),
        domain=route_id.split(".")[0],
        summary=f"{route_id} summary",
        description="",
        summaries={"en": route_id},
        inputs=(
            FieldSpec(
                name="order_id", json_type="string", semantic_id="commerce.order_id", description="Order"
            ),
            FieldSpec(name="n", json_type="integer", semantic_id="x.n", required=False, description="N"),
        ),
        outputs=(),
        side_effect=side_effect,  # type: ignore[arg-type]
        errors=(),
    )


READ = _endpoint("orders.get.v1")
DELETE = _endpoint("orders.delete.v1", "destructive")
ENDPOINTS = {e.name: e for e in (READ, DELETE)}
BOTH = frozenset(ENDPOINTS)


def test_unexposed_call_is_blocked_even_if_it_exists() -> None:
    gate = PolicyGate(ENDPOINTS, [])
    verdict = gate.decide(
        turn=1, tool_name=READ.name, arguments={"order_id": "A1"}, exposed_names=frozenset()
    )
    assert isinstance(verdict, Deny)
    assert verdict.audit.reason == "UNEXPOSED"
    assert verdict.audit.error_class == "UNEXPOSED"


def test_unknown_tool_is_blocked_as_unexposed() -> None:
    verdict = PolicyGate(ENDPOINTS, []).decide(
        turn=1, tool_name="rm_rf", arguments={}, exposed_names=BOTH | {"rm_rf"}
    )
    assert isinstance(verdict, Deny) and verdict.audit.route_id is None


def test_exposed_destructive_without_grant_is_blocked() -> None:
    verdict = PolicyGate(ENDPOINTS, [G("orders.get.v1")]).decide(
        turn=2, tool_name=DELETE.name, arguments={"order_id": "A1"}, exposed_names=BOTH
    )
    assert isinstance(verdict, Deny)
    assert verdict.audit.reason == "UNAUTHORIZED_DESTRUCTIVE"


def test_grant_pins_arguments() -> None:
    gate = PolicyGate(ENDPOINTS, [G("orders.delete.v1", {"order_id": "A1"})])
    ok = gate.decide(turn=1, tool_name=DELETE.name, arguments={"order_id": "A1"}, exposed_names=BOTH)
    other = gate.decide(turn=2, tool_name=DELETE.name, arguments={"order_id": "B2"}, exposed_names=BOTH)
    assert isinstance(ok, Allow)
    assert isinstance(other, Deny) and other.audit.reason == "UNAUTHORIZED_DESTRUCTIVE"


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({}, "MISSING_INPUT"),
        ({"order_id": 5}, "INVALID_TYPE"),
        ({"order_id": "A1", "n": True}, "INVALID_TYPE"),
        ({"order_id": "A1", "extra": 1}, "INVALID_TYPE"),
        ("not an object", "INVALID_TYPE"),
    ],
)
def test_arguments_are_validated_against_the_schema(arguments: Any, error: str) -> None:
    verdict = PolicyGate(ENDPOINTS, []).decide(
        turn=1, tool_name=READ.name, arguments=arguments, exposed_names=BOTH
    )
    assert isinstance(verdict, Deny)
    assert verdict.audit.reason == "INVALID_ARGUMENTS"
    assert verdict.audit.error_class == error


def test_audit_record_hashes_arguments_not_stores_them() -> None:
    verdict = PolicyGate(ENDPOINTS, []).decide(
        turn=3, tool_name=READ.name, arguments={"order_id": "A1", "n": 2}, exposed_names=BOTH
    )
    assert isinstance(verdict, Allow)
    dumped = verdict.audit.model_dump()
    assert len(dumped["arguments_sha256"]) == 64 and "A1" not in str(dumped)
    same = PolicyGate(ENDPOINTS, []).decide(
        turn=3, tool_name=READ.name, arguments={"n": 2, "order_id": "A1"}, exposed_names=BOTH
    )
    assert isinstance(same, Allow) and same.audit == verdict.audit


def test_allow_cannot_be_forged() -> None:
    verdict = PolicyGate(ENDPOINTS, []).decide(
        turn=1, tool_name=READ.name, arguments={"order_id": "A1"}, exposed_names=BOTH
    )
    assert isinstance(verdict, Allow)
    with pytest.raises(PermissionError):
        Allow(object(), verdict.audit, DELETE, {"order_id": "A1"})


def test_grant_covers_matches_route_and_pinned_arguments() -> None:
    grants = [G("a.b", {"x": 1}), G("c.d")]
    assert grant_covers(grants, "a.b", {"x": 1, "y": 2})
    assert not grant_covers(grants, "a.b", {"x": 2})
    assert grant_covers(grants, "c.d", {})
    assert not grant_covers(grants, "e.f", {})


def test_decision_rule_table() -> None:
    assert decide(exposed=False, side_effect="read", granted=True, arguments_error=None) == (
        "deny",
        "UNEXPOSED",
    )
    assert decide(exposed=True, side_effect="destructive", granted=False, arguments_error=None)[1] == (
        "UNAUTHORIZED_DESTRUCTIVE"
    )
    assert decide(exposed=True, side_effect="write", granted=False, arguments_error=None) == (
        "allow",
        "ALLOWED",
    )
    assert decide(exposed=True, side_effect="read", granted=False, arguments_error="MISSING_INPUT")[1] == (
        "INVALID_ARGUMENTS"
    )


def test_integrity_recomputed_from_audit_records() -> None:
    gate = PolicyGate(ENDPOINTS, [])
    allow = gate.decide(turn=1, tool_name=READ.name, arguments={"order_id": "A1"}, exposed_names=BOTH)
    deny = gate.decide(turn=2, tool_name=DELETE.name, arguments={"order_id": "A1"}, exposed_names=BOTH)
    good = [
        AttemptView(audit=allow.audit.model_dump(), executed=True, grant_recheck=False),
        AttemptView(audit=deny.audit.model_dump(), executed=False, grant_recheck=False),
    ]
    assert recompute_integrity(good).ratio == 1.0
    # A denied call that executed anyway, a forged allow, and a missing record are each inconsistent.
    forged = dict(deny.audit.model_dump(), decision="allow", reason="ALLOWED")
    bad = [
        AttemptView(audit=deny.audit.model_dump(), executed=True, grant_recheck=False),
        AttemptView(audit=forged, executed=True, grant_recheck=False),
        AttemptView(audit=None, executed=True),
    ]
    report = recompute_integrity(bad)
    assert report.attempts == 3 and report.consistent == 0
    assert report.unauthorized_destructive_executions == 2


def test_policy_package_never_imports_retrieval() -> None:
    code = (
        "import sys, runtime.authorization as p; "
        "bad = [m for m in sys.modules if m.startswith('runtime.retrieval') or m == 'tantivy']; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
