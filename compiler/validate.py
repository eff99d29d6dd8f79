"""Validate a project's specs: load, check each schema, validate each file, then the semantic checks.

Order:
1. load every ``spec/<name>.yaml`` and ``spec/schema/<name>.schema.json`` (line-aware, strict);
2. check each schema against the Draft 2020-12 meta-schema;
3. validate each spec file against its schema, collecting every error;
4. run the semantic checks whose spec files all passed 1-3 (what JSON Schema cannot say).

Every problem of every step is collected; ``validate_project`` raises once with all of them, sorted
by file and position.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compiler import (
    checks_conditions,
    checks_metrics_gates,
    checks_retriever,
    checks_state_contract,
    checks_surface,
    checks_variants,
)
from compiler import (
    protocol_file as protocol,
)
from compiler.issues import SpecIssue, SpecValidationError, sorted_issues
from compiler.schema_validation import check_schema, validate_document
from compiler.semantic_view import RegisteredCheck, SpecView
from compiler.spec_files import load_spec_set
from runtime.core.registry import Registry
from schemarouter.project import ProjectPaths

P = "protocol"
# The checks JSON Schema cannot state, by function name, in this order (a closed kind: a check is part
# of the spec language, not a plugin).
SEMANTIC_CHECKS: Registry[RegisteredCheck] = Registry("semantic check", group=None)
for _check in (
    RegisteredCheck((P,), protocol.check_protocol_coherent),
    RegisteredCheck(("experiment", P), checks_surface.check_experiment_identity),
    RegisteredCheck(("experiment", P), checks_surface.check_bootstrap),
    RegisteredCheck(("experiment", "strata", P), checks_surface.check_cell_counts),
    RegisteredCheck(("strata", "state_contract", P), checks_surface.check_strata),
    RegisteredCheck(("state_contract", P), checks_state_contract.check_allowed_fields),
    RegisteredCheck(("state_contract", P), checks_state_contract.check_forbidden_items),
    RegisteredCheck(("state_contract",), checks_state_contract.check_field_kinds_and_sources),
    RegisteredCheck(("state_contract", "conditions"), checks_state_contract.check_field_names_pass_the_guard),
    RegisteredCheck(("state_contract",), checks_state_contract.check_allowed_disjoint_from_forbidden),
    RegisteredCheck(("state_contract",), checks_state_contract.check_identifier_pattern),
    RegisteredCheck(("state_contract", "conditions"), checks_state_contract.check_serialization_conditions),
    RegisteredCheck(("conditions", P), checks_conditions.check_condition_set),
    RegisteredCheck(("conditions", P), checks_conditions.check_limits_match_protocol),
    RegisteredCheck(("conditions",), checks_conditions.check_policy_shapes),
    RegisteredCheck(("conditions", P), checks_conditions.check_condition_limits),
    RegisteredCheck(("conditions", P), checks_conditions.check_shared_trigger),
    RegisteredCheck(("conditions", P), checks_variants.check_refresh_variants),
    RegisteredCheck(("conditions",), checks_variants.check_condition_retrievers),
    RegisteredCheck(("conditions", "state_contract"), checks_variants.check_keep_needs_the_field),
    RegisteredCheck(("metrics", "conditions", P), checks_metrics_gates.check_metrics),
    RegisteredCheck(("gates", "conditions", P), checks_metrics_gates.check_gate_conditions),
    RegisteredCheck(("gates", "metrics", "conditions", P), checks_metrics_gates.check_gate_criteria),
    RegisteredCheck(("retriever",), checks_retriever.check_strategy),
):
    SEMANTIC_CHECKS.add(_check.check.__name__, _check, module=_check.check.__module__)


@dataclass(frozen=True)
class ValidatedSpecs:
    """The parsed data of every spec file of a project that passed validation, by name."""

    data: dict[str, Any]

    @property
    def names(self) -> list[str]:
        return sorted(self.data)


def collect_issues(paths: ProjectPaths) -> tuple[dict[str, Any], list[SpecIssue]]:
    """The data of the schema-valid spec files, and every problem found, sorted by position."""
    spec_set = load_spec_set(paths)
    issues = list(spec_set.issues)
    valid_schemas: dict[str, dict[str, Any]] = {}
    for name, schema in spec_set.schemas.items():
        if schema.issues:
            continue
        schema_issues = check_schema(schema)
        issues.extend(schema_issues)
        if not schema_issues:
            valid_schemas[name] = schema.data
    valid = {}
    for name, document in spec_set.documents.items():
        unreadable = document.data is None and bool(document.issues)
        if unreadable or name not in valid_schemas:
            continue
        # A file with a duplicate key or a rejected tag still has data: validate it too, so one
        # run reports every problem; only a file without any problem reaches the semantic checks.
        schema_issues = validate_document(document, valid_schemas[name])
        issues.extend(schema_issues)
        if not schema_issues and not document.issues:
            valid[name] = document
    view = SpecView(valid)
    for registered in (entry.value for entry in SEMANTIC_CHECKS.entries()):
        if view.has(*registered.reads):
            issues.extend(registered.check(view))
    return {name: document.data for name, document in valid.items()}, sorted_issues(issues)


def validate_project(paths: ProjectPaths) -> ValidatedSpecs:
    """Validate every spec file of the project; raise ``SpecValidationError`` listing every problem."""
    data, issues = collect_issues(paths)
    if issues:
        raise SpecValidationError(issues)
    return ValidatedSpecs(data)
