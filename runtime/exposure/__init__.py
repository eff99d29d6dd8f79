"""Exposure policies: what the agent is shown in each turn, one registered kind per module.

Exposure changes what the agent can see, never what it may execute (that is the policy gate's).
"""

from runtime.exposure.kinds.full_catalog import FullCatalog
from runtime.exposure.kinds.oracle_required_routes import OracleRequired
from runtime.exposure.kinds.progressive_widening import ProgressiveWidening
from runtime.exposure.kinds.state_refresh import StateRefresh
from runtime.exposure.kinds.static_topk import StaticTopK
from runtime.exposure.policies import ExposurePolicy
from runtime.exposure.registry import (
    PolicyInputs,
    build_policy,
    get_policy,
    policy_kinds,
    register_policy,
)

__all__ = [
    "ExposurePolicy",
    "FullCatalog",
    "OracleRequired",
    "PolicyInputs",
    "ProgressiveWidening",
    "StateRefresh",
    "StaticTopK",
    "build_policy",
    "get_policy",
    "policy_kinds",
    "register_policy",
]
