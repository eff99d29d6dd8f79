"""The state boundary: typed, observable execution state and its canonical JSON (spec/state_contract.yaml)."""

from runtime.state.drift import contract_drift
from runtime.state.errors import ContractViolation
from runtime.state.jcs import canonical_json
from runtime.state.model import ObservableState, StableIdentifier, UnitTriple

__all__ = [
    "ContractViolation",
    "ObservableState",
    "StableIdentifier",
    "UnitTriple",
    "canonical_json",
    "contract_drift",
]
