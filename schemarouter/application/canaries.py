"""Behavioural canaries: what each component of an experiment did on a fixed, deterministic episode set.

The canary set is the first ``PER_STRATUM`` tasks (by task id) of every stratum of the experiment's
development surface (``catalogs/_surfaces/dev/<id>/``, never the evaluation surface), each run under
every condition on the largest catalog (where the version twins are) with the reference agent; a pinned
record's own set (``CanarySet``) is rerun as pinned. From those episodes every component gets its own
items, each hashed by ``code_record.CANARY_RULE``:

* retrieval strategy: the top ``DEPTH`` of the original query of every canary task, and of the query
  with the state after every turn of every episode of a ranking condition (``<task>/<condition>/t<n>``);
* exposure policy (per kind): each episode's exposed route IDs per turn and the rankings it used;
* agent: each episode's decisions; state guard: each episode's states; simulator expression language:
  each episode's typed results; episode engine: each episode's whole trace, the clock's values aside;
* metric (per id): each episode's value and components (none for a wall-clock metric);
* gate statistic (per name): its value and note for each criterion using it, on the canary rows (the
  exact statistics) or on fixed intervals (the interval statistics).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from runtime.core.errors import SchemaRouterError
from runtime.core.jcs import dumps as jcs_dumps
from runtime.core.json_value import JSONObject, JSONValue
from runtime.engine.episode import run_episode
from runtime.engine.resources import EngineResources
from runtime.engine.trace import EpisodeTrace
from runtime.scoring.bootstrap import Interval
from runtime.scoring.spec import ScoringSpec
from runtime.scoring.statistics import StatisticInput, registered_statistics
from runtime.spec_model import CompiledSpec
from runtime.spec_model.code_record import CanarySet
from runtime.state import ObservableState
from runtime.surface.model import Task
from schemarouter.application.surfaces import choose_surface
from schemarouter.project import ProjectPaths

SURFACE = "dev"
PER_STRATUM = 3
DEPTH = 10
AGENT = "reference"
# Fixed intervals an interval statistic is read on (point, low, high): a canary of the function only.
FIXED_INTERVALS = ((0.5, 0.25, 0.75), (-0.125, -0.375, 0.0625), (None, None, None))
WALL = ("wall_latency_ms",)


def item_hash(value: JSONValue) -> str:
    """CANARY_RULE."""
    return hashlib.sha256(jcs_dumps(value)).hexdigest()[:16]


def _object(value: JSONValue) -> JSONObject:
    """``value``, which a trace's JSON holds as an object there (``EpisodeTrace``)."""
    if not isinstance(value, dict):
        raise TypeError(f"a trace holds an object here, not {type(value).__name__}")
    return value


def _list(value: JSONValue) -> list[JSONValue]:
    """``value``, which a trace's JSON holds as a list there (exposure sets, turns, retrieval calls)."""
    if not isinstance(value, list):
        raise TypeError(f"a trace holds a list here, not {type(value).__name__}")
    return value


def _objects(value: JSONValue) -> list[JSONObject]:
    """``value``, which a trace's JSON holds as a list of objects there (turns, retrieval calls)."""
    return [_object(item) for item in _list(value)]


@dataclass(frozen=True)
class CanaryEpisodes:
    """The canary set and its episodes' traces (JSON data), keyed ``<task>/<condition>``."""

    canary_set: CanarySet
    traces: dict[str, JSONObject]
    resources: EngineResources

    def by_condition(self, condition: str) -> Iterator[tuple[str, JSONObject]]:
        for key, trace in self.traces.items():
            if trace["condition"] == condition:
                yield key, trace


def dev_surface_available(paths: ProjectPaths) -> bool:
    """Whether the project defines the development surface (``spec/_surfaces/dev/``, experiments layout)."""
    from compiler.generate.surface_names import named_surfaces

    return paths.experiment is not None and SURFACE in named_surfaces(paths.root)


def choose_tasks(tasks: list[Task], per_stratum: int = PER_STRATUM) -> list[Task]:
    """The first ``per_stratum`` tasks of each stratum, by task id; strata in name order."""
    by_stratum: dict[str, list[Task]] = {}
    for task in sorted(tasks, key=lambda t: t.task_id):
        by_stratum.setdefault(task.stratum, []).append(task)
    return [t for _, group in sorted(by_stratum.items()) for t in group[:per_stratum]]


def run_canary_episodes(
    paths: ProjectPaths, compiled: CompiledSpec, *, pinned: CanarySet | None = None
) -> CanaryEpisodes:
    """Run the canary episodes of ``compiled`` on its development surface: the set ``pinned`` names
    (its catalog, tasks and depth, so a record stays checkable when these defaults change), or the
    default set."""
    chosen = choose_surface(paths, surface=SURFACE, surface_file=None)
    if chosen.file is None:  # choose_surface always names a pilot's file; kept for the type checker
        raise SchemaRouterError(f"experiment {paths.experiment}: no development surface for the canaries")
    # The largest catalog by default: its version twins are what reorderings of a ranking meet.
    catalog = pinned.catalog if pinned else max(compiled.experiment.catalog_sizes)
    resources = EngineResources.load(
        catalogs_dir=paths.catalogs_dir,
        compiled=compiled,
        catalog_sizes=(catalog,),
        agent=AGENT,
        surface_file=chosen.file,
    )
    if pinned is not None:
        tasks = [resources.task(t) for t in pinned.tasks]
    else:
        tasks = choose_tasks(list(resources.tasks.values()))
    conditions = tuple(c.id for c in compiled.conditions)
    traces: dict[str, JSONObject] = {}
    for task in tasks:
        for condition in conditions:
            trace: EpisodeTrace = run_episode(
                resources=resources, task=task, condition_id=condition, catalog_size=catalog
            )
            traces[f"{task.task_id}/{condition}"] = json.loads(trace.model_dump_json())
    canary_set = CanarySet(
        surface=SURFACE,
        surface_sha256=hashlib.sha256(chosen.file.read_bytes()).hexdigest(),
        catalog=catalog,
        agent=AGENT,
        depth=pinned.depth if pinned else DEPTH,
        tasks=tuple(t.task_id for t in tasks),
        conditions=conditions,
    )
    return CanaryEpisodes(canary_set, traces, resources)


def _hashed(items: Iterator[tuple[str, JSONValue]]) -> dict[str, str]:
    return {key: item_hash(value) for key, value in items}


def strategy_items(episodes: CanaryEpisodes) -> dict[str, str]:
    """The strategy's rankings: each canary task's query, and the query with every recorded state."""
    res = episodes.resources
    cat = res.catalog(episodes.canary_set.catalog)
    depth = episodes.canary_set.depth
    ranking = {c.id for c in res.compiled.conditions if c.retrieval_query != "none"}

    def items() -> Iterator[tuple[str, JSONValue]]:
        for task_id in episodes.canary_set.tasks:
            query = res.task(task_id).visible().query
            yield f"{task_id}/query", list(cat.static_retriever.rank(query, depth).route_ids)
            for condition in episodes.canary_set.conditions:
                if condition not in ranking:
                    continue
                for turn in _objects(episodes.traces[f"{task_id}/{condition}"]["turns"]):
                    if turn.get("state_after") is None:
                        continue
                    state = ObservableState.from_json(json.dumps(turn["state_after"]))
                    call = cat.state_aware_retriever.rank(query, state, depth)
                    yield f"{task_id}/{condition}/t{turn['turn']}", list(call.route_ids)

    return _hashed(items())


def _per_episode(
    episodes: CanaryEpisodes,
    part: Callable[[JSONObject], JSONValue],
    conditions: set[str] | None = None,
) -> dict[str, str]:
    return _hashed(
        (key, part(trace))
        for key, trace in episodes.traces.items()
        if conditions is None or trace["condition"] in conditions
    )


def exposure_items(trace: JSONObject) -> JSONValue:
    exposures = _list(trace["exposures"])  # the exposure sets, which each turn names by index
    return [[exposures[_index(t["exposure"])], t["ranking_top5"]] for t in _objects(trace["turns"])]


def _index(value: JSONValue) -> int:
    if not isinstance(value, int):
        raise TypeError(f"a turn names its exposure by index, not {type(value).__name__}")
    return value


def decision_items(trace: JSONObject) -> JSONValue:
    return [t["decision"] for t in _objects(trace["turns"])]


def state_items(trace: JSONObject) -> JSONValue:
    return [t["state_after"] for t in _objects(trace["turns"])]


def result_items(trace: JSONObject) -> JSONValue:
    return [t["result"] for t in _objects(trace["turns"])]


def trace_items(trace: JSONObject) -> JSONValue:
    """The trace without what the clock measures (wall latency, each retrieval call's latency_us)."""
    body = {k: v for k, v in trace.items() if k not in WALL}
    body["metrics"] = {k: v for k, v in _object(trace["metrics"]).items() if k not in WALL}
    body["turns"] = [
        {
            **t,
            "retrieval_calls": [
                {k: v for k, v in c.items() if k != "latency_us"} for c in _objects(t["retrieval_calls"])
            ],
        }
        for t in _objects(trace["turns"])
    ]
    return body


def metric_items(episodes: CanaryEpisodes, metric_id: str) -> dict[str, str]:
    spec = episodes.resources.compiled.metric(metric_id)
    if not spec.deterministic:
        return {}
    keys = (metric_id, spec.numerator, spec.denominator)
    return _per_episode(episodes, lambda t: {k: _object(t["metrics"]).get(k) for k in keys if k is not None})


def statistic_items(episodes: CanaryEpisodes, name: str) -> dict[str, str]:
    """The statistic ``name`` on every criterion that uses it."""
    spec = ScoringSpec.from_compiled(episodes.resources.compiled)
    rows = [
        {
            "catalog": t["catalog"],
            "condition": t["condition"],
            "task_id": t["task_id"],
            **_object(t["metrics"]),
        }
        for t in episodes.traces.values()
    ]
    fn = registered_statistics()[name].fn
    out: dict[str, str] = {}
    for criterion in spec.gate.criteria:
        if criterion.statistic != name:
            continue
        metric = spec.metric(criterion.metric)
        if criterion.compare == "all_conditions":
            value = fn(StatisticInput(criterion, metric, episodes.canary_set.catalog, None, rows))
            out[f"{criterion.code}/rows"] = item_hash(list(value))
            continue
        for index, (point, low, high) in enumerate(FIXED_INTERVALS):
            interval = Interval(point, low, high, 0)
            value = fn(StatisticInput(criterion, metric, episodes.canary_set.catalog, interval, rows))
            out[f"{criterion.code}/interval{index + 1}"] = item_hash(list(value))
    return out


ITEM_NOUN: Mapping[str, str] = {
    "retrieval strategy": "canary rankings",
    "exposure policy": "canary exposures",
    "agent": "canary decisions",
    "state guard": "canary states",
    "simulator expression language": "canary results",
    "episode engine": "canary traces",
    "metric": "canary values",
    "gate statistic": "canary statistics",
}
