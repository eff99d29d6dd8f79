"""Exposure policies: what the agent is shown in each turn, one registered kind per module.

Exposure changes what the agent can see, never what it may execute (that is the policy gate's).
"""

from schemarouter.runtime.exposure.kinds.full_catalog import FullCatalog
from schemarouter.runtime.exposure.kinds.oracle_required_routes import OracleRequired
from schemarouter.runtime.exposure.kinds.progressive_widening import ProgressiveWidening
from schemarouter.runtime.exposure.kinds.state_refresh import StateRefresh
from schemarouter.runtime.exposure.kinds.static_topk import StaticTopK
from schemarouter.runtime.exposure.policies import ExposurePolicy
from schemarouter.runtime.exposure.registry import (
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
