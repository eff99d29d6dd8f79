"""The five conditions as exposure policies: what the agent is shown in each turn.

Exposure changes what the agent can see, never what it may execute (that is the policy gate's).
"""

from schemarouter.runtime.exposure.policies import (
    ExposurePolicy,
    FullCatalog,
    OracleRequired,
    ProgressiveWidening,
    StateRefresh,
    StaticTopK,
)
from schemarouter.runtime.exposure.registry import POLICY_KINDS, build_policy

__all__ = [
    "POLICY_KINDS",
    "ExposurePolicy",
    "FullCatalog",
    "OracleRequired",
    "ProgressiveWidening",
    "StateRefresh",
    "StaticTopK",
    "build_policy",
]
