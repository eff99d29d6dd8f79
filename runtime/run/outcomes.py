"""What every executor shares: the request it is given, running one episode in a worker, and committing
outcomes in the parent.

A worker turns an episode into an :class:`EpisodeRecord` or a :class:`Failure` (an exception, an unknown
task) and never writes. The parent's :class:`Sink` alone writes the store: one transaction per finished
episode, an infrastructure event per failure, and the counts of the session.
"""

from __future__ import annotations

import dataclasses
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from runtime.run.engine_port import (
    EngineSetup,
    EpisodeEngine,
    EpisodeRecord,
    LoadedEngine,
    episode_record,
)
from runtime.run.scope import EpisodeKey
from runtime.run.store import EpisodeStore

if TYPE_CHECKING:
    from runtime.retrieval.key_free import KeyFreeKey, KeyFreeMatch

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class ExecutionRequest:
    """What a session asks an executor to run: ``keys`` (already minus the committed ones), committed to
    ``store`` under ``session`` by the caller's process alone, on ``workers`` workers that each load
    ``engine`` with ``setup``. Scheduling stops after ``max_events`` infrastructure events.
    ``threads``: model requests each worker keeps in flight at once (``runtime/run/in_flight.py``);
    ``requests``: the run's total (``--concurrency N``), shared out so that the workers together never
    exceed it (None: ``workers x threads``)."""

    keys: Sequence[EpisodeKey]
    store: EpisodeStore
    engine: EpisodeEngine
    setup: EngineSetup
    session: int
    workers: int
    max_events: int = 20
    on_progress: ProgressCallback | None = None
    threads: int = 1
    requests: int | None = None

    def slots(self, worker: int) -> int:
        """Request slots of worker ``worker`` (0-based): ``requests`` shared out as evenly as it goes,
        the first workers taking one more each; without ``requests``, ``threads`` each."""
        if self.requests is None:
            return self.threads
        base, extra = divmod(self.requests, self.workers)
        return max(1, base + (1 if worker < extra else 0))

    def sink(self) -> Sink:
        """The parent's writer for this request's episodes."""
        return Sink(
            store=self.store, session=self.session, total=len(self.keys), on_progress=self.on_progress
        )


@dataclass(frozen=True)
class Failure:
    """An infrastructure failure, as it travels from a worker to the parent. ``stops_session``: why
    every further episode would fail the same way (a model server that cannot be reached), so the
    session stops scheduling at once; set from the exception's ``stops_session`` attribute."""

    kind: str
    error_type: str
    message: str
    traceback: str
    stops_session: str | None = None


@dataclass(frozen=True)
class ExecutionSummary:
    """What one session did."""

    attempted: int
    committed: int
    events: int
    stopped_early: str | None
    model_calls: dict[str, int] | None = None
    # The key-free answers the session's workers recorded (EpisodeRecord.key_free), merged.
    key_free: dict[KeyFreeKey, KeyFreeMatch] | None = None


class Sink:
    """Commits outcomes and records events in the parent, counting as it goes."""

    def __init__(
        self, *, store: EpisodeStore, session: int, total: int, on_progress: ProgressCallback | None
    ) -> None:
        self.store, self.session, self.total, self.on_progress = store, session, total, on_progress
        self.done = self.committed = self.events = 0
        self.model_calls: dict[str, int] | None = None
        self.key_free: dict[KeyFreeKey, KeyFreeMatch] | None = None
        self.stopping: str | None = None  # the first failure that stops the session

    def accept(self, key: EpisodeKey, outcome: EpisodeRecord | Failure) -> None:
        if isinstance(outcome, Failure):
            self.fail(key, outcome)
        else:
            self.store.commit_episode(
                key,
                metrics=outcome.metrics,
                wall_latency_ms=outcome.wall_latency_ms,
                trace_zlib=outcome.trace_zlib,
                session=self.session,
            )
            if self.committed == 0:
                self.store.resolve_session_events()  # the engine loads now: earlier load failures resolved
            self.committed += 1
            if outcome.key_free:
                if self.key_free is None:
                    self.key_free = {}
                self.key_free.update(outcome.key_free)
            if outcome.model_calls:
                totals = self.model_calls if self.model_calls is not None else {}
                for name, value in outcome.model_calls.items():
                    totals[name] = totals.get(name, 0) + int(value)
                self.model_calls = totals
            self._advance()

    def fail(self, key: EpisodeKey | None, failure: Failure, *, retrying: bool = False) -> None:
        """Record an infrastructure event. ``retrying``: the episode runs again in this session, so it
        does not count as attempted yet (its later commit resolves the event)."""
        self.store.record_event(
            key,
            kind=failure.kind,
            error_type=failure.error_type,
            message=failure.message,
            traceback=failure.traceback,
            session=self.session,
        )
        self.events += 1
        if failure.stops_session and self.stopping is None:
            self.stopping = failure.stops_session
        if key is not None and not retrying:
            self._advance()

    def stop_reason(self, max_events: int) -> str | None:
        """Why no further episode should be scheduled, if one should not: a failure that every further
        episode would repeat, or ``max_events`` infrastructure events in this session."""
        if self.stopping is not None:
            return self.stopping
        return f"{self.events} infrastructure events" if self.events >= max_events else None

    def tick(self) -> None:
        """Nothing finished for a while: let the progress display redraw (rates, requests in flight)."""
        if self.on_progress is not None:
            self.on_progress(self.done, self.total)

    def _advance(self) -> None:
        self.done += 1
        if self.on_progress is not None:
            self.on_progress(self.done, self.total)

    def summary(self, stopped_early: str | None) -> ExecutionSummary:
        return ExecutionSummary(
            attempted=self.done,
            committed=self.committed,
            events=self.events,
            stopped_early=stopped_early,
            model_calls=self.model_calls,
            key_free=self.key_free,
        )


def run_one(engine: EpisodeEngine, loaded: LoadedEngine, key: EpisodeKey) -> EpisodeRecord | Failure:
    """One episode in a worker: its record, or the failure that stands for it."""
    try:
        task = loaded.tasks[key.task_id]
    except KeyError as err:
        return failure("unknown_task", err)
    try:
        # The epoch is passed only when it is not 1, so engines written before epochs run unchanged.
        extra = {} if key.epoch == 1 else {"epoch": key.epoch}
        trace = engine.run(loaded, task, key.condition, key.catalog, **extra)
        record = episode_record(trace)
        key_free = getattr(engine, "key_free", None)  # an engine without it records none
        if key_free is None:
            return record
        return dataclasses.replace(record, key_free=key_free(loaded, trace))
    except Exception as err:
        return failure("episode_exception", err)


def run_batch(
    keys: Iterable[EpisodeKey], outcome_of: Callable[[EpisodeKey], EpisodeRecord | Failure]
) -> list[tuple[EpisodeKey, EpisodeRecord | Failure]]:
    """A worker's batch in order. After a failure that stops the session the rest of the batch is not
    run: no record and no event for those, so the next ``--resume`` runs them."""
    out: list[tuple[EpisodeKey, EpisodeRecord | Failure]] = []
    for key in keys:
        outcome = outcome_of(key)
        out.append((key, outcome))
        if isinstance(outcome, Failure) and outcome.stops_session:
            break
    return out


def failure(kind: str, err: BaseException) -> Failure:
    stops = getattr(err, "stops_session", None)
    return Failure(
        kind=kind,
        error_type=type(err).__name__,
        message=str(err)[:2000],
        traceback="".join(traceback.format_exception(err))[-8000:],
        stops_session=stops if isinstance(stops, str) and stops else None,
    )
