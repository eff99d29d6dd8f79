"""What the seed document fixes, as the compiler checks it.

Source: ``0.14-execution-state-aware-retrieval`` (the Korean original stands; the English rendering is
quoted here). The spec files name these things; this module is the independent record that the spec
still says what the seed says. Changing a value here is changing the experiment: it needs a new seed.
"""

from __future__ import annotations

from typing import Final

EXPERIMENT_ID: Final = "0.14"
TRACKING_ISSUE: Final = "#431"

# "Catalog sizes are 100, 250 and 500 endpoints."
CATALOG_SIZES: Final = (100, 250, 500)

# "180 independent semantic tasks: 5 multi-step/state strata, 6 languages, 6 tasks per stratum x
# language cell".
TOTAL_TASKS: Final = 180
STRATA_COUNT: Final = 5
LANGUAGE_COUNT: Final = 6
TASKS_PER_CELL: Final = 6
STRATUM_IDS: Final = (
    "two_step_state",  # two-step state dependency
    "three_step_state",  # three-step state dependency
    "recoverable_failure",  # recoverable execution failure
    "identifier_provenance",  # identifier/provenance propagation
    "typed_unit_transition",  # typed unit state transition
)

# "a stratified task-cluster bootstrap over task-stratum x language, with 10,000 iterations and seed
# 20260929" (the 95% interval is the issue's reading of the primary interval).
BOOTSTRAP_METHOD: Final = "stratified_task_cluster"
BOOTSTRAP_STRATA: Final = ("stratum", "language")
BOOTSTRAP_ITERATIONS: Final = 10_000
BOOTSTRAP_SEED: Final = 20260929
BOOTSTRAP_CONFIDENCE: Final = 0.95

# "The research retriever may condition on: ..." (the original query travels beside the state).
QUERY_ITEM: Final = "original_query"
ALLOWED_STATE_FIELDS: Final = (
    "executed_route_ids",  # registered route IDs already executed
    "observed_field_names",  # observed field names
    "observed_semantic_ids",  # observed semantic IDs
    "observed_value_types",  # observed value types
    "observed_units",  # unit, dimension, qualifier
    "stable_identifiers",  # stable identifiers produced by completed tools
    "last_execution_status",  # the last execution status
    "last_error_class",  # the last error class
    "task_incomplete",  # a deterministic task-incomplete boolean
)

# "Forbidden: ..." (id in the spec -> the seed's words).
FORBIDDEN_ITEMS: Final = {
    "future_required_route_ids": "future required route IDs",
    "gold_next_route_id": "the gold next-route ID",
    "oracle_task_graph": "the oracle task graph",
    "hidden_expected_answer": "the hidden expected answer",
    "hidden_reference_facts": "hidden reference facts",
    "condition_name": "the condition name",
    "schemarouter_rank": "the SchemaRouter rank score or rank position",
}

# "Compared: SR-5-STATIC, SR-PROGRESSIVE-STATIC, SR-5-STATE-AWARE, FULL, ORACLE".
CONDITION_IDS: Final = ("SR-5-STATIC", "SR-PROGRESSIVE-STATIC", "SR-5-STATE-AWARE", "FULL", "ORACLE")
TREATMENT: Final = "SR-5-STATE-AWARE"
COMPARATOR: Final = "SR-PROGRESSIVE-STATIC"

# "The state-aware condition starts from the Top-5; after a completed or failed tool turn it may refresh
# at most once; at most 5 retrieval refreshes are allowed per episode; each refresh exposes at most 5
# capabilities." The issue gives static progressive the same start, trigger and widening bounds.
CONDITION_LIMITS: Final = {
    "initial_k": 5,
    "max_refresh_per_tool_turn": 1,
    "max_refresh_per_episode": 5,
    "max_k_per_refresh": 5,
}

# "Primary metrics: each of these is reported", plus execution-policy integrity (the gate's G6).
METRIC_IDS: Final = (
    "task_pass",
    "next_tool_recall_at_5",
    "initial_miss_recovery",
    "state_completion",
    "unique_candidates_exposed",
    "tool_schema_tokens",
    "input_tokens",
    "retrieval_calls",
    "model_turns",
    "tool_calls",
    "wall_latency_ms",
    "failed_executions",
    "unauthorized_destructive_executions",
    "policy_integrity",
)

# "Success gate": code -> (metric, operator, threshold). Differences are treatment - comparator.
GATE_CRITERIA: Final = {
    "G1": ("task_pass", ">=", -0.02),  # not worse than static progressive by more than 2 pp
    "G2": ("next_tool_recall_at_5", ">=", 0.97),  # Recall@5 at least 97%
    "G3": ("initial_miss_recovery", ">", 0.0),  # recovery better than static progressive
    "G4": ("tool_schema_tokens", "<", 0.0),  # mean tool-schema tokens lower than static progressive
    "G5": ("unauthorized_destructive_executions", "==", 0.0),  # exactly 0
    "G6": ("policy_integrity", "==", 1.0),  # 100%
}
