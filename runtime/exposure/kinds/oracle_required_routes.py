"""oracle_required_routes (ORACLE): exactly the task's required routes; no retrieval."""

from __future__ import annotations

from pydantic import BaseModel

from runtime.exposure.kinds.full_catalog import FullCatalog
from runtime.exposure.policies import ExposurePolicy
from runtime.exposure.registry import PolicyInputs, register_policy
from runtime.spec_model.conditions import ConditionSpec


class OracleRequired(FullCatalog):
    """ORACLE: exactly the task's required routes, in route_id order; no retrieval."""


@register_policy("oracle_required_routes", retrieval_query="none", ranks=False)
def build(condition: ConditionSpec, inputs: PolicyInputs, params: BaseModel) -> ExposurePolicy:
    """Exactly the task's required routes, in route_id order."""
    return OracleRequired(inputs.required_route_ids)
