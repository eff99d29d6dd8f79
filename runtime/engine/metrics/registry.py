"""The metric registry: ``@metric("id", components=(...))`` registers the function where it is defined.

A metric function takes an :class:`EpisodeView` (the trace, the task, the catalog, the executed calls)
and returns its value, or, when it declares ``components``, a mapping holding its value and each
component (the numerator and denominator a ratio of sums needs). Every module of this package is
imported on first use (``builtin`` first, then the others by name), so a new metric is one new module
here, its test, and its entry in a successor's metrics.yaml: no central list to edit. The values come
out in the order of the experiment's metrics.yaml (``episode_metrics(metric_ids=...)``), which is part
of the trace's bytes; only the metrics it names are computed, so a metric registered for a successor
never reaches another experiment's traces.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from runtime.authorization.integrity import AttemptView
from runtime.catalog.model import Endpoint
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject, JSONValue
from runtime.core.registry import Registry
from runtime.engine.trace import EpisodeTrace, TurnRecord
from runtime.simulator.calls import ExecutedCall
from runtime.simulator.result import ObservedField, ToolResult
from runtime.surface.model import Task

MetricValue = float | int | None
MetricValues = dict[str, MetricValue]
MetricFn = Callable[["EpisodeView"], "MetricValue | Mapping[str, MetricValue]"]


class RouteLookup(Protocol):
    """What a metric reads of the catalog: its endpoints by route ID."""

    @property
    def by_route(self) -> Mapping[str, Endpoint]: ...


@dataclass(frozen=True)
class RegisteredMetric:
    id: str
    fn: MetricFn
    components: tuple[str, ...]
    module: str


# ``builtin`` first, then the package's other modules by name, then the ``schemarouter.metrics`` entry
# points of installed packages.
METRICS: Registry[RegisteredMetric] = Registry(
    "metric", group="metrics", package=__name__.rsplit(".", 1)[0], first=("builtin",), skip=("registry",)
)


def metric(metric_id: str, *, components: tuple[str, ...] = ()) -> Callable[[MetricFn], MetricFn]:
    """Register ``fn`` as the per-episode function of ``metric_id`` (its spec entry's ``id``)."""

    def register(fn: MetricFn) -> MetricFn:
        METRICS.add(
            metric_id, RegisteredMetric(metric_id, fn, components, fn.__module__), module=fn.__module__
        )
        return fn

    return register


def registered_metrics() -> tuple[RegisteredMetric, ...]:
    """Every registered metric, in registration order (``builtin`` first, then modules by name)."""
    return tuple(e.value for e in METRICS.entries())


def metrics_named(metric_ids: Sequence[str]) -> tuple[RegisteredMetric, ...]:
    """The registered metrics an experiment's metrics.yaml names, in its order: a metric registered for
    another experiment is never computed, so it changes no byte of this one's traces. A named metric
    without an implementation is one clear error."""
    missing = [m for m in metric_ids if m not in METRICS]
    if missing:
        raise SchemaRouterError(
            f"metrics.yaml names {', '.join(map(repr, missing))}, which no module of "
            "runtime/engine/metrics/ or installed package registers (@metric)"
        )
    return tuple(METRICS.get(m) for m in metric_ids)


@dataclass
class EpisodeView:
    """What a metric function reads: the trace (the engine's, being finished, or a stored one read
    with ``read_trace``), the task, the catalog, whether the condition ranks, the wall time, and the
    executed calls."""

    task: Task
    trace: EpisodeTrace
    ranks: bool
    catalog: RouteLookup
    wall_ms: float
    executed: list[tuple[int, ExecutedCall]] = field(default_factory=list)

    @property
    def turns(self) -> list[TurnRecord]:
        """The trace's turns."""
        return self.trace.turns

    @property
    def passed(self) -> bool:
        return self.trace.passed

    @cached_property
    def attempts(self) -> list[tuple[TurnRecord, AttemptView]]:
        """(turn, AttemptView) of every tool call or bad output, the gate's input, in order."""
        from runtime.authorization.execution_gate import grant_covers

        out = []
        grants = self.task.grants  # what task.visible() carries, read without copying the task
        for t in self.turns:
            if t.decision.kind not in ("tool_call", "bad_output"):
                continue
            result = t.result
            executed_now = result is not None and result.status in ("ok", "error")
            route_id = result.route_id if result is not None else None
            args = t.decision.arguments
            granted = grant_covers(grants, route_id or "", args if isinstance(args, dict) else {})
            out.append((t, AttemptView(audit=t.audit, executed=executed_now, grant_recheck=granted)))
        return out


def episode_metrics(
    *,
    task: Task,
    trace: EpisodeTrace,
    ranks: bool,
    catalog: RouteLookup,
    wall_ms: float,
    metric_ids: Sequence[str],
    executed: list[tuple[int, ExecutedCall]] | None = None,
) -> MetricValues:
    """The metrics ``metric_ids`` names (the compiled experiment's, in spec order) of one episode.
    ``executed``: the engine's own (turn, call) list, equal to what ``executed_calls_from_turns``
    rebuilds from the trace; a stored trace is rescored without it."""
    if executed is None:
        executed = executed_calls_of(trace)
    view = EpisodeView(task, trace, ranks, catalog, wall_ms, executed)
    return metric_values(metrics_named(metric_ids), view)


def metric_values(metrics: Sequence[RegisteredMetric], view: EpisodeView) -> MetricValues:
    """The values of ``metrics`` (resolved once per run by ``metrics_named``, in spec order) for one
    episode's view: a metric with components contributes its value and each component."""
    values: MetricValues = {}
    for registered in metrics:
        value = registered.fn(view)
        if registered.components:
            assert isinstance(value, Mapping), registered.id
            values.update(value)
        else:
            assert not isinstance(value, Mapping), registered.id
            values[registered.id] = value
    return values


class _LastExecuted(threading.local):
    """The last trace ``executed_calls_of`` was asked about (held, so its identity stays its own) and
    its calls: scoring's audit and then its diagnostics ask about each stored trace in turn."""

    trace: EpisodeTrace | None = None
    calls: tuple[tuple[int, ExecutedCall], ...] = ()


_LAST_EXECUTED = _LastExecuted()


def executed_calls_of(trace: EpisodeTrace) -> list[tuple[int, ExecutedCall]]:
    """``executed_calls_from_turns(trace.turns)``, built once for the same trace object asked about
    twice in a row (a new list each time; the calls are frozen models)."""
    last = _LAST_EXECUTED
    if last.trace is not trace:
        last.calls = tuple(executed_calls_from_turns(trace.turns))
        last.trace = trace
    return list(last.calls)


def executed_calls_from_turns(turns: Sequence[TurnRecord]) -> list[tuple[int, ExecutedCall]]:
    """(turn, ExecutedCall) for every executed (allowed) call in the trace, in order."""
    out: list[tuple[int, ExecutedCall]] = []
    for t in turns:
        r = t.result
        if r is None or r.status == "blocked":
            continue
        if r.route_id is None:
            raise ValueError(f"turn {t.turn}: an executed call's result names no route")
        result = ToolResult(
            route_id=r.route_id,
            status=r.status,
            error_class=r.error_class,
            fields=tuple(ObservedField.model_validate(f) for f in r.fields),
            message=r.message,
        )
        args = t.decision.arguments
        out.append(
            (t.turn, ExecutedCall(route_id=result.route_id, arguments=_arguments(args), result=result))
        )
    return out


def _arguments(args: JSONValue) -> JSONObject:
    """An executed call's recorded arguments as an object (the gate executes only object arguments;
    none recorded is no arguments)."""
    if not args:
        return {}
    if not isinstance(args, dict):
        raise TypeError(f"an executed call's arguments are not an object: {args!r}")
    return dict(args)
