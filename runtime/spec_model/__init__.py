"""Frozen, typed runtime objects of the compiled spec, the compiled manifest and the freeze lock.

The runtime reads ``build/compiled.json`` with ``load_compiled`` and never imports the compiler.
"""

from runtime.spec_model.compiled import (
    MANIFEST_SCHEMA_VERSION,
    BuildInfo,
    CompiledSpec,
    FreezeRef,
    load_compiled,
    manifest_json,
)
from runtime.spec_model.conditions import ConditionLimitsSpec, ConditionSpec, RefreshSpec
from runtime.spec_model.digest import Digest, FileDigest, GitState
from runtime.spec_model.experiment import (
    BootstrapSpec,
    ExperimentSpec,
    LanguageSpec,
    ProvenanceSpec,
    SeedDocument,
)
from runtime.spec_model.gates import GateCriterionSpec, GateSpec
from runtime.spec_model.lock import (
    FreezeLock,
    ScoringStarted,
    read_lock,
    record_scoring_started,
    scoring_started,
)
from runtime.spec_model.metrics import MetricSpec
from runtime.spec_model.state_contract import (
    ForbiddenItemSpec,
    QueryItemSpec,
    SerializationSpec,
    StateContractSpec,
    StateFieldSpec,
    StateFieldType,
)
from runtime.spec_model.strata import StratumGeneration, StratumSpec

__all__ = [
    "MANIFEST_SCHEMA_VERSION",
    "BootstrapSpec",
    "BuildInfo",
    "CompiledSpec",
    "ConditionLimitsSpec",
    "ConditionSpec",
    "Digest",
    "ExperimentSpec",
    "FileDigest",
    "ForbiddenItemSpec",
    "FreezeLock",
    "FreezeRef",
    "GateCriterionSpec",
    "GateSpec",
    "GitState",
    "LanguageSpec",
    "MetricSpec",
    "ProvenanceSpec",
    "QueryItemSpec",
    "RefreshSpec",
    "ScoringStarted",
    "SeedDocument",
    "SerializationSpec",
    "StateContractSpec",
    "StateFieldSpec",
    "StateFieldType",
    "StratumGeneration",
    "StratumSpec",
    "load_compiled",
    "manifest_json",
    "read_lock",
    "record_scoring_started",
    "scoring_started",
]
