"""Static top-k recall of the required routes for the original queries: a fact about the surface.

For every task, the original query alone is ranked (exactly as every SR condition's initial top 5)
and the task's required routes are looked up in its top k. Reported per catalog size x stratum x
language: route recall (required routes found / required routes) and task coverage (tasks with every
required route found / tasks). This is what spec/retriever.yaml's parameters were chosen on; it
never compares conditions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from runtime.retrieval.index import RetrievalIndex
from runtime.retrieval.strategy import RetrievalStrategy


@dataclass(frozen=True)
class RecallTask:
    """The visible query of a task and the routes its gold plan may need (hidden; used for scoring only)."""

    task_id: str
    stratum: str
    language: str
    query: str
    required_route_ids: tuple[str, ...]


@dataclass(frozen=True)
class TaskRecall:
    """One task's outcome at one catalog size."""

    catalog_size: int
    task: RecallTask
    found: tuple[str, ...]

    @property
    def covered(self) -> bool:
        return len(self.found) == len(set(self.task.required_route_ids))


@dataclass(frozen=True)
class RecallCell:
    """Aggregate over a group of tasks."""

    catalog_size: int
    stratum: str
    language: str
    tasks: int
    required: int
    found: int
    covered_tasks: int

    @property
    def route_recall(self) -> float:
        return self.found / self.required if self.required else 0.0

    @property
    def task_coverage(self) -> float:
        return self.covered_tasks / self.tasks if self.tasks else 0.0


def task_recalls(
    ranker: RetrievalIndex | RetrievalStrategy, tasks: Iterable[RecallTask], k: int = 5
) -> list[TaskRecall]:
    """Each task's required routes found in the top k of its original query, ranked by ``ranker``'s
    ``rank_query`` (the experiment's strategy; a bare index is text_concat)."""
    from runtime.retrieval.retrievers import as_strategy

    strategy = as_strategy(ranker)
    out: list[TaskRecall] = []
    for task in sorted(tasks, key=lambda t: t.task_id):
        top = set(strategy.rank_query(task.query, k).route_ids)
        found = tuple(sorted(r for r in set(task.required_route_ids) if r in top))
        out.append(TaskRecall(catalog_size=strategy.size, task=task, found=found))
    return out


def aggregate(
    results: Sequence[TaskRecall], *, by_stratum: bool = True, by_language: bool = True
) -> list[RecallCell]:
    """Cells keyed by catalog size (and stratum / language unless collapsed, shown as ``*``)."""
    groups: dict[tuple[int, str, str], list[TaskRecall]] = {}
    for r in results:
        key = (r.catalog_size, r.task.stratum if by_stratum else "*", r.task.language if by_language else "*")
        groups.setdefault(key, []).append(r)
    return [
        RecallCell(
            catalog_size=size,
            stratum=stratum,
            language=language,
            tasks=len(rows),
            required=sum(len(set(r.task.required_route_ids)) for r in rows),
            found=sum(len(r.found) for r in rows),
            covered_tasks=sum(r.covered for r in rows),
        )
        for (size, stratum, language), rows in sorted(groups.items())
    ]
