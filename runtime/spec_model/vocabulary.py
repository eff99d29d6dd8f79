"""The spec vocabularies, each stated once: what a gate criterion compares, its statistics and
operators, the refresh modes of exposure policies, and metric aggregates. The exposure policy kinds
themselves are not listed here: they are the kinds registered in runtime/exposure/ (``policy_kinds``),
and each kind's registration states its shape (what it retrieves with, whether it ranks, its modes).

Every other place derives from these: the compiled models and scoring use the Literals, the gate's
operator table is keyed by them, and ``tests/test_vocabulary.py`` checks that the JSON Schemas
(report.schema.json and each experiment's gates and conditions schemas) list exactly these values.
A frozen experiment's schema is never rewritten; a new word goes here first, then into a successor's
schema.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

Compare = Literal["difference", "treatment", "all_conditions"]
Statistic = Literal["point", "ci_low", "ci_high", "exact_count", "exact_ratio"]
Operator = Literal[">=", ">", "<=", "<", "=="]
Aggregate = Literal["mean", "ratio", "count"]
RefreshMode = Literal["cumulative", "replace", "add", "replace_keep"]

COMPARES: Final = get_args(Compare)
STATISTICS: Final = get_args(Statistic)
OPERATORS: Final = get_args(Operator)
AGGREGATES: Final = get_args(Aggregate)
REFRESH_MODES: Final = get_args(RefreshMode)

# The exact statistics go with compare=all_conditions, each with the aggregate it needs.
EXACT_STATISTICS: Final[dict[str, str]] = {"exact_count": "count", "exact_ratio": "ratio"}
