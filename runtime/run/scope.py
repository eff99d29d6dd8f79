"""What a run covers: its tasks, conditions and catalog sizes, the canonical episode order, and shards.

The scope is declared once, when a run directory is created, and recorded in its manifest. Terminality
("every episode of the declared scope committed, no unresolved infrastructure event") is always judged
against that declaration, never against what happens to be in the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from pydantic import Field

from runtime.core.errors import SchemaRouterError
from runtime.core.frozen_model import FrozenModel


class EpisodeKey(NamedTuple):
    """The identity of one episode: a task under a condition at a catalog size, in one epoch (trial).

    ``epoch`` is 1 unless the run repeats episodes (``sr run --epochs N``)."""

    task_id: str
    condition: str
    catalog: int
    epoch: int = 1

    def label(self) -> str:
        base = f"{self.task_id} | {self.condition} | {self.catalog}"
        return base if self.epoch == 1 else f"{base} | epoch {self.epoch}"


# More trials per episode than this is a typo (each is a full set of model calls).
MAX_EPOCHS = 100


class TaskRef(FrozenModel):
    """A task as the run and the bootstrap see it: its ID and its stratum x language cell."""

    task_id: str = Field(description="Stable task ID from the frozen surface.")
    stratum: str = Field(description="Stratum ID from spec/strata.yaml (e.g. two_step_state).")
    language: str = Field(description="Language code from spec/experiment.yaml (e.g. en).")


class Shard(FrozenModel):
    """Shard K of N: the episodes whose canonical index i satisfies i mod N == K - 1."""

    index: int = Field(ge=1, description="K, 1-based.")
    count: int = Field(ge=1, description="N, the number of shards the scope is split into.")

    @classmethod
    def parse(cls, text: str | None) -> Shard:
        if text is None:
            return cls(index=1, count=1)
        try:
            k_text, n_text = text.split("/")
            if not (_small_number(k_text) and _small_number(n_text)):
                raise ValueError(text)
            k, n = int(k_text), int(n_text)
        except ValueError:
            raise SchemaRouterError(f"--shard {_shown(text)}: expected K/N, e.g. 2/4") from None
        if not 1 <= k <= n:
            raise SchemaRouterError(f"--shard {text!r}: K must be between 1 and N")
        return cls(index=k, count=n)

    def label(self) -> str:
        return f"{self.index}/{self.count}"


class RunScope(FrozenModel):
    """The declared scope of a run, before sharding. Order of every tuple is canonical."""

    conditions: tuple[str, ...] = Field(description="Condition IDs, in spec/conditions.yaml order.")
    catalogs: tuple[int, ...] = Field(description="Catalog sizes, ascending.")
    tasks: tuple[TaskRef, ...] = Field(description="Tasks, sorted by task_id.")
    preregistered: bool = Field(
        description="True when the scope is the whole preregistered experiment (every condition, "
        "catalog size and task); only then is the gate verdict the experiment's answer."
    )
    epochs: int = Field(
        default=1,
        ge=1,
        le=MAX_EPOCHS,
        exclude_if=lambda value: value == 1,
        description="Trials per episode (sr run --epochs N), each with its own derived sampling seed. "
        "Recorded only when greater than 1, so a one-epoch scope (and its run's identity) is unchanged.",
    )

    def episode_keys(self) -> list[EpisodeKey]:
        """Every episode of the scope in canonical order: catalog, then condition, then task_id, then
        epoch (a task's epochs are adjacent)."""
        return [
            EpisodeKey(task.task_id, condition, catalog, epoch)
            for catalog in self.catalogs
            for condition in self.conditions
            for task in self.tasks
            for epoch in range(1, self.epochs + 1)
        ]

    def shard_keys(self, shard: Shard) -> list[EpisodeKey]:
        """The episodes of one shard: round-robin over the canonical order, so shards are balanced."""
        return [key for i, key in enumerate(self.episode_keys()) if i % shard.count == shard.index - 1]

    def task_index(self) -> dict[str, TaskRef]:
        return {task.task_id: task for task in self.tasks}


# A selection is the CLI's comma-separated text or, from Python, a sequence of its tokens.
Selection = str | Sequence[str | int]


def select_conditions(text: Selection | None, spec_conditions: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """Parse ``--conditions`` (IDs or codes, comma-separated, or a list of them) into IDs in spec order.

    ``spec_conditions`` is the spec's ``(id, code)`` list in order.
    """
    if text is None:
        return tuple(cid for cid, _ in spec_conditions)
    _require_tokens("--conditions", text, "a condition ID or code (C1..C5); leave the option out for all")
    by_token = {cid: cid for cid, _ in spec_conditions} | {code: cid for cid, code in spec_conditions}
    chosen = set()
    for token in _tokens(text):
        if token not in by_token:
            valid = ", ".join(f"{cid} ({code})" for cid, code in spec_conditions)
            raise SchemaRouterError(f"--conditions: unknown condition {_shown(token)}; valid: {valid}")
        chosen.add(by_token[token])
    return tuple(cid for cid, _ in spec_conditions if cid in chosen)


def select_catalogs(text: Selection | None, spec_sizes: Sequence[int]) -> tuple[int, ...]:
    """Parse ``--catalogs`` (sizes, comma-separated) into ascending sizes from the spec."""
    if text is None:
        return tuple(sorted(spec_sizes))
    _require_tokens("--catalogs", text, "a catalog size; leave the option out for all")
    chosen = set()
    for token in _tokens(text):
        if not _small_number(token) or int(token) not in spec_sizes:
            raise SchemaRouterError(
                f"--catalogs: unknown catalog size {_shown(token)}; valid: {', '.join(map(str, spec_sizes))}"
            )
        chosen.add(int(token))
    return tuple(sorted(chosen))


def select_tasks(
    text: Selection | None,
    tasks: Iterable[TaskRef],
    *,
    strata: Sequence[tuple[str, str]],
    languages: Sequence[str],
) -> tuple[TaskRef, ...]:
    """Parse ``--tasks`` into the selected tasks, sorted by task_id.

    Tokens (comma-separated) are task IDs, stratum IDs or codes (``two_step_state``, ``S1``) and language
    codes (``en``). The strata filter and the languages filter intersect (``S1,en``: stratum S1 in
    English); explicit task IDs are added to what the filters select.
    """
    all_tasks = sorted(tasks, key=lambda t: t.task_id)
    if text is None:
        return tuple(all_tasks)
    _require_tokens("--tasks", text, "a task ID, stratum or language; leave the option out for all")
    chosen = _task_tokens(text, {t.task_id for t in all_tasks}, strata=strata, languages=languages)
    selected = {t.task_id for t in chosen.filtered(all_tasks)} | chosen.ids
    if not selected:
        raise SchemaRouterError(f"--tasks {_shown(text)} selects no task")
    return tuple(t for t in all_tasks if t.task_id in selected)


@dataclass(frozen=True)
class _TaskTokens:
    """The tokens of ``--tasks`` by kind: task IDs, stratum IDs, language codes."""

    ids: frozenset[str]
    strata: frozenset[str]
    languages: frozenset[str]

    def filtered(self, tasks: Iterable[TaskRef]) -> list[TaskRef]:
        """The tasks both filters admit (an empty filter admits all); none without any filter."""
        if not self.strata and not self.languages:
            return []
        return [t for t in tasks if self._admits(t)]

    def _admits(self, task: TaskRef) -> bool:
        return (not self.strata or task.stratum in self.strata) and (
            not self.languages or task.language in self.languages
        )


def _task_tokens(
    text: Selection, task_ids: set[str], *, strata: Sequence[tuple[str, str]], languages: Sequence[str]
) -> _TaskTokens:
    """Each token of ``--tasks`` as a task ID, else a stratum (ID or code), else a language."""
    stratum_by_token = {sid: sid for sid, _ in strata} | {code: sid for sid, code in strata}
    ids: set[str] = set()
    chosen_strata: set[str] = set()
    chosen_languages: set[str] = set()
    for token in _tokens(text):
        if token in task_ids:
            ids.add(token)
        elif token in stratum_by_token:
            chosen_strata.add(stratum_by_token[token])
        elif token in languages:
            chosen_languages.add(token)
        else:
            raise _unknown_task_token(token, strata, languages)
    return _TaskTokens(frozenset(ids), frozenset(chosen_strata), frozenset(chosen_languages))


def _unknown_task_token(
    token: str, strata: Sequence[tuple[str, str]], languages: Sequence[str]
) -> SchemaRouterError:
    return SchemaRouterError(
        f"--tasks: {_shown(token)} is neither a task ID, a stratum "
        f"({', '.join(sid for sid, _ in strata)}, or S1..S{len(strata)}) nor a language "
        f"({', '.join(languages)})"
    )


def _tokens(text: Selection) -> list[str]:
    parts = text.split(",") if isinstance(text, str) else [str(t) for t in text]
    return [token.strip() for token in parts if token.strip()]


def _require_tokens(option: str, text: Selection, what: str) -> None:
    """An empty value (``""``, ``",,,"``) selects nothing; it never silently means everything."""
    if not _tokens(text):
        raise SchemaRouterError(f"{option} {_shown(text)}: names nothing; give {what}")


def _small_number(token: str) -> bool:
    """ASCII digits that convert cheaply (a 5,000-digit number is not a size or a shard)."""
    token = token.strip()
    return token.isascii() and token.isdigit() and len(token) <= 9


def _shown(text: Selection) -> str:
    shown = repr(text if isinstance(text, str) else list(text))
    return shown if len(shown) <= 60 else f"{shown[:40]}... ({len(text)} characters)"
