"""Repeated trials (``sr run --epochs N``): the cluster a task's epochs form, pass^k, and the spread
of the pass rate across epochs.

* The bootstrap resamples tasks; a task's N epochs stay together in its cluster. With every task
  carrying the same N trials, the resampled mean over the trials of the drawn tasks equals the mean
  over the drawn tasks of each task's mean over its epochs, so :func:`collapse_epochs` gives the
  bootstrap one row per task x condition x catalog holding each value's mean over the epochs (a ratio
  metric's numerator and denominator alike, so its ratio of sums is unchanged), and the bootstrap
  itself is untouched. The gate's exact statistics (counts of unauthorized executions, integrity)
  read every trial's row.
* pass^k (τ-bench, Yao et al. 2024): for each task with c passing trials out of n,
  C(c, k) / C(n, k) is the chance that k trials drawn without replacement all pass; pass^k is its
  mean over tasks, for k = 1..n. pass^1 is the mean pass rate.
* The pass rate of each epoch (mean over tasks), their mean, and a Student-t interval over the N
  epoch means (confidence as the bootstrap's).

With one epoch nothing here changes a row or a report: the report's ``epochs`` block is absent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypedDict

from runtime.scoring.estimates import round_sig
from runtime.scoring.per_task import Row

PASS_METRIC = "task_pass"
_KEY = ("task_id", "condition", "catalog")


class EpochSpread(TypedDict):
    """One condition and catalog size's pass rate over the epochs (report.json ``epochs``)."""

    per_epoch: list[float | None]
    mean: float | None
    ci_low: float | None
    ci_high: float | None


def collapse_epochs(rows: Sequence[Row], epochs: int) -> list[Row]:
    """One row per task x condition x catalog, each numeric value its mean over the task's epochs."""
    if epochs == 1:
        return list(rows)
    grouped: dict[tuple[Any, ...], list[Row]] = {}
    for row in rows:
        grouped.setdefault(tuple(row[k] for k in _KEY), []).append(row)
    out = []
    for group in grouped.values():
        first = group[0]
        merged: Row = {k: v for k, v in first.items() if k != "epoch"}
        for name, value in first.items():
            if name in _KEY or name in ("stratum", "language", "epoch") or value is None:
                continue
            values = [r[name] for r in group]
            merged[name] = None if any(v is None for v in values) else sum(values) / len(values)
        out.append(merged)
    return out


def pass_hat_k(
    rows: Sequence[Row], epochs: int, *, conditions: Sequence[str], catalogs: Sequence[int]
) -> dict[str, dict[str, dict[str, float | None]]]:
    """pass^k for k = 1..epochs, by condition and catalog (JSON keys: catalog and k as strings)."""
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for condition in conditions:
        for catalog in catalogs:
            passes = _passes_by_task(rows, condition, catalog)
            if not passes:
                continue
            block = {
                str(k): round_sig(
                    sum(math.comb(sum(p), k) / math.comb(len(p), k) for p in passes.values()) / len(passes)
                )
                for k in range(1, epochs + 1)
            }
            out.setdefault(condition, {})[str(catalog)] = block
    return out


def epoch_spread(
    rows: Sequence[Row], epochs: int, *, conditions: Sequence[str], catalogs: Sequence[int], confidence: float
) -> dict[str, dict[str, EpochSpread]]:
    """The pass rate of each epoch, their mean and a t interval over the epochs."""
    from scipy import stats

    out: dict[str, dict[str, EpochSpread]] = {}
    for condition in conditions:
        for catalog in catalogs:
            passes = _passes_by_task(rows, condition, catalog)
            if not passes:
                continue
            per_epoch = [sum(p[e] for p in passes.values()) / len(passes) for e in range(epochs)]
            mean = sum(per_epoch) / epochs
            sd = math.sqrt(sum((x - mean) ** 2 for x in per_epoch) / (epochs - 1)) if epochs > 1 else 0.0
            half = float(stats.t.ppf(0.5 + confidence / 2, epochs - 1)) * sd / math.sqrt(epochs)
            out.setdefault(condition, {})[str(catalog)] = {
                "per_epoch": [round_sig(x) for x in per_epoch],
                "mean": round_sig(mean),
                "ci_low": round_sig(mean - half),
                "ci_high": round_sig(mean + half),
            }
    return out


def epochs_block(
    rows: Sequence[Row], epochs: int, *, conditions: Sequence[str], catalogs: Sequence[int], confidence: float
) -> dict[str, Any]:
    """report.json's ``epochs`` field (only written when epochs > 1)."""
    return {
        "epochs": epochs,
        "seeds": "epoch 1 samples with the agent's seed; epoch e > 1 with the first 31 bits of "
        "sha256('schemarouter/epoch-seed/{seed}/{e}')",
        "bootstrap_cluster": "a task's epochs resample together (their mean per task)",
        "pass_hat_k": pass_hat_k(rows, epochs, conditions=conditions, catalogs=catalogs),
        "pass_hat_k_definition": "mean over tasks of C(c, k) / C(n, k), c of n trials passed (τ-bench)",
        f"{PASS_METRIC}_over_epochs": epoch_spread(
            rows, epochs, conditions=conditions, catalogs=catalogs, confidence=confidence
        ),
        "interval_over_epochs": f"Student t, {confidence:g} confidence, over the per-epoch means",
    }


def _passes_by_task(rows: Sequence[Row], condition: str, catalog: int) -> dict[str, list[int]]:
    """Each task's pass (0/1) per epoch, in epoch order, for one condition and catalog."""
    by_task: dict[str, list[tuple[int, int]]] = {}
    for row in rows:
        if row["condition"] == condition and row["catalog"] == catalog and row.get(PASS_METRIC) is not None:
            by_task.setdefault(row["task_id"], []).append((int(row.get("epoch", 1)), int(row[PASS_METRIC])))
    return {task: [p for _, p in sorted(trials)] for task, trials in by_task.items()}
