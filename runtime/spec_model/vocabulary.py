"""The spec vocabularies, each stated once: what a gate criterion compares, its statistics and
operators, the exposure policies, their refresh modes, and metric aggregates.

Every other place derives from these: the compiled models and scoring use the Literals, the gate's
operator table and the exposure registry are keyed by them, the compiler's checks use
``POLICY_REFRESH_MODE``, and ``tests/test_vocabulary.py`` checks that the JSON Schemas (report.schema.json
and each experiment's gates and conditions schemas) list exactly these values. A frozen experiment's
schema is never rewritten; a new word goes here first, then into a successor's schema.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

Compare = Literal["difference", "treatment", "all_conditions"]
Statistic = Literal["point", "ci_low", "ci_high", "exact_count", "exact_ratio"]
Operator = Literal[">=", ">", "<=", "<", "=="]
Aggregate = Literal["mean", "ratio", "count"]
Policy = Literal[
    "static_topk", "progressive_widening", "state_refresh", "full_catalog", "oracle_required_routes"
]
RefreshMode = Literal["cumulative", "replace"]

COMPARES: Final = get_args(Compare)
STATISTICS: Final = get_args(Statistic)
OPERATORS: Final = get_args(Operator)
AGGREGATES: Final = get_args(Aggregate)
POLICIES: Final = get_args(Policy)
REFRESH_MODES: Final = get_args(RefreshMode)

# The exact statistics go with compare=all_conditions, each with the aggregate it needs.
EXACT_STATISTICS: Final[dict[str, str]] = {"exact_count": "count", "exact_ratio": "ratio"}

# What each policy retrieves with, whether it ranks (has initial_k), and its refresh mode (None: it
# does not refresh). The policy decides; conditions.yaml's refresh.mode must say the same (checked
# by the compiler), and the exposure policies implement exactly these.
POLICY_SHAPES: Final[dict[str, tuple[str, bool, RefreshMode | None]]] = {
    "static_topk": ("original", True, None),
    "progressive_widening": ("original", True, "cumulative"),
    "state_refresh": ("original_plus_state", True, "replace"),
    "full_catalog": ("none", False, None),
    "oracle_required_routes": ("none", False, None),
}
