"""The state boundary: typed, observable execution state and its canonical JSON (spec/state_contract.yaml)."""

from schemarouter.runtime.state.drift import contract_drift
from schemarouter.runtime.state.errors import ContractViolation
from schemarouter.runtime.state.jcs import canonical_json
from schemarouter.runtime.state.model import ObservableState, StableIdentifier, UnitTriple

__all__ = [
    "ContractViolation",
    "ObservableState",
    "StableIdentifier",
    "UnitTriple",
    "canonical_json",
    "contract_drift",
]
