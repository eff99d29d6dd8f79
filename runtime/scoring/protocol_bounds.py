"""Upper bounds that the protocol sets on a gate criterion, from the protocol's information only.

**Nothing beyond the original query.** The state contract's fields are of two sorts by their type:
``set`` fields carry facts observed from completed tools (executed route IDs, observed field names,
semantic IDs, value types, units, stable identifiers); ``enum``, ``optional_enum`` and ``boolean``
fields carry the status of the last attempt (``last_execution_status``, ``last_error_class``,
``task_incomplete``). A state *carries nothing beyond the original query* when every ``set`` field
of the contract is empty: the retriever then knows the query and how the last attempt went, no typed
fact. Under 0.14's protocol this is the state after a gate-blocked first attempt (a refusal records
only the status), or after failed attempts that observed nothing.

**Next-tool Recall@5.** At such a decision point any retriever is a function of the query and the
status. The bound takes the best Recall@5 that any registered strategy reaches at those points
(through either entry point, each strategy's hits counted over all of them: no per-point or
per-query choice, which a lookup table would make 1), and counts every other decision point as a
hit: ``bound = (points - bare + best_hits) / points``.

**Task pass.** No treatment passes more tasks than the agent does with every required route exposed:
the better of the ceiling conditions (FULL, ORACLE) at that catalog size. **Initial-miss recovery**:
the same ceiling restricted to the tasks whose initial top 5 missed under the treatment.

A difference criterion's bound is the treatment's bound minus the comparator's pilot estimate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from runtime.core.json_value import JSONValue
from runtime.scoring.per_task import Row
from runtime.spec_model.state_contract import StateContractSpec

FACT_KIND = "set"


def fact_fields(contract: StateContractSpec) -> tuple[str, ...]:
    """The contract's fields that carry facts from completed tools (its ``set``-typed fields)."""
    return tuple(f.name for f in contract.allowed if f.type.kind == FACT_KIND)


def nothing_beyond_query(state: Mapping[str, JSONValue], facts: Sequence[str]) -> bool:
    """Whether a contract-visible state carries nothing beyond the original query (see module docs)."""
    return not any(state.get(name) for name in facts)


@dataclass(frozen=True)
class BarePoints:
    """The decision points of one catalog size and how the best registered strategy does at the bare ones."""

    points: int
    bare: int
    best_hits: int
    best_label: str  # "strategy (entry point)"

    @property
    def share(self) -> float:
        return self.bare / self.points if self.points else 0.0

    @property
    def best_recall(self) -> float | None:
        return self.best_hits / self.bare if self.bare else None

    @property
    def bound(self) -> float | None:
        if not self.points:
            return None
        return (self.points - self.bare + self.best_hits) / self.points


def best_at_bare(points: int, bare: int, hits_by_label: Mapping[str, int]) -> BarePoints:
    """The best label's hits at the bare points (ties by label, so the choice is stable)."""
    if not hits_by_label:
        return BarePoints(points, bare, 0, "none")
    label = min(hits_by_label, key=lambda k: (-hits_by_label[k], k))
    return BarePoints(points, bare, hits_by_label[label], label)


def task_pass_ceiling(
    rows: Sequence[Row], ceilings: Sequence[str], catalog: int, metric: str
) -> float | None:
    """The best pass rate of the ceiling conditions at ``catalog``."""
    rates = []
    for condition in ceilings:
        values = [r[metric] for r in rows if r["catalog"] == catalog and r["condition"] == condition]
        if values:
            rates.append(sum(float(v) for v in values) / len(values))
    return max(rates) if rates else None


def recovery_ceiling(
    rows: Sequence[Row],
    ceilings: Sequence[str],
    treatment: str,
    catalog: int,
    *,
    pass_metric: str,
    missed: str,
) -> float | None:
    """The ceiling conditions' pass rate on the tasks the treatment initially missed at ``catalog``."""
    here = [r for r in rows if r["catalog"] == catalog]
    misses = {r["task_id"] for r in here if r["condition"] == treatment and r.get(missed)}
    if not misses:
        return None
    best: dict[str, float] = {}
    for r in here:
        if r["condition"] in ceilings and r["task_id"] in misses:
            best[r["task_id"]] = max(best.get(r["task_id"], 0.0), float(r[pass_metric]))
    return sum(best.get(t, 0.0) for t in misses) / len(misses)
