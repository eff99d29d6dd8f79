"""Ranking metrics against relevance judgments, and bootstrap intervals over queries.

For one query with relevant routes R and a ranking r_1, r_2, ... (binary relevance):

- Recall@k = |R ∩ {r_1..r_k}| / |R|;
- nDCG@10 = DCG@10 / IDCG@10, DCG = Σ_{i ≤ 10, r_i ∈ R} 1 / log2(i + 1), IDCG the DCG of a ranking
  with every relevant route first;
- MRR: the mean over queries of 1 / (rank of the first relevant route), 0 when none is ranked.

Each is averaged over queries. The 95 % interval is the percentile bootstrap over queries:
``numpy.random.Generator(PCG64(seed))`` draws ``B`` resamples of the query indices at once
(``integers(0, n, (B, n))``); the same matrix serves every strategy of a population, so strategies are
compared on the same resamples. Percentiles are ``method="linear"``; values are rounded to 12
significant digits, as the scoring bootstrap does, so reports are byte-identical across machines.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

METRICS = (
    "success_at_1",
    "success_at_5",
    "success_at_10",
    "recall_at_1",
    "recall_at_5",
    "recall_at_10",
    "ndcg_at_10",
    "mrr",
)
# success@k (hit@k): 1 if at least one relevant route is in the top k; recall@k: the share of the
# relevant routes in the top k (a two-route query scores 0.5 at best at k = 1).
CONFIDENCE = 0.95


def query_metrics(ranking: Sequence[str], relevant: frozenset[str]) -> dict[str, float]:
    """The metrics of one ranked list against one query's relevant routes."""
    if not relevant:
        raise ValueError("a judged query needs at least one relevant route")

    def recall(k: int) -> float:
        return len(relevant.intersection(ranking[:k])) / len(relevant)

    def success(k: int) -> float:
        return 1.0 if relevant.intersection(ranking[:k]) else 0.0

    dcg = sum(1.0 / math.log2(i + 2) for i, route in enumerate(ranking[:10]) if route in relevant)
    idcg = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
    first = next((i for i, route in enumerate(ranking) if route in relevant), None)
    return {
        "success_at_1": success(1),
        "success_at_5": success(5),
        "success_at_10": success(10),
        "recall_at_1": recall(1),
        "recall_at_5": recall(5),
        "recall_at_10": recall(10),
        "ndcg_at_10": dcg / idcg,
        "mrr": 0.0 if first is None else 1.0 / (first + 1),
    }


@dataclass(frozen=True)
class Estimate:
    """A mean over queries with its percentile-bootstrap interval."""

    mean: float
    low: float
    high: float


def resample_matrix(n: int, *, seed: int, resamples: int) -> np.ndarray:
    """The (resamples x n) matrix of query indices drawn with replacement."""
    rng = np.random.Generator(np.random.PCG64(seed))
    return rng.integers(0, n, size=(resamples, n))


def estimate(values: Sequence[float], matrix: np.ndarray) -> Estimate:
    """The mean of ``values`` and its interval over the resamples in ``matrix``."""
    v = np.asarray(values, dtype=np.float64)
    means = v[matrix].mean(axis=1)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail], method="linear")
    return Estimate(mean=_round(float(v.mean())), low=_round(float(low)), high=_round(float(high)))


def _round(x: float) -> float:
    return float(f"{x:.12g}")
