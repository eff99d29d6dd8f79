"""report.json's ``diagnostics`` section, from the stored traces of a scored set (README.md beside this).

``diagnose`` is what scoring calls (``runtime.scoring.score.Diagnose``) once every trace has passed
the metrics audit: it derives each episode's facts (``trace_facts``: ``episode_facts`` of the trace
read with ``read_trace``) and aggregates them with the scoring's own resample counts. Facts derived
while the audit went (``Diagnoser.observe`` in ``source.py``, from the audit's own reading of each
trace) are handed in as ``facts``; without them each stored trace is read here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Protocol

from runtime.catalog.model import Endpoint
from runtime.diagnostics.causes import CAUSE_IDS, CAUSES
from runtime.diagnostics.episode_facts import TRANSITIONS, EpisodeFacts, episode_facts
from runtime.diagnostics.intervals import RatioColumns
from runtime.diagnostics.key_names import KeyNameProbe
from runtime.engine.trace import EpisodeTrace, read_trace
from runtime.scoring.score import DiagnosisInput
from runtime.scoring.spec import ScoringSpec
from runtime.surface.model import Task

DIAGNOSTICS_VERSION = 1
RECALL_METRIC = "next_tool_recall_at_5"
PASS_METRIC = "task_pass"


class _Routes(Protocol):
    @property
    def by_route(self) -> Mapping[str, Endpoint]: ...


class EpisodeSource(Protocol):
    """The frozen tasks and each catalog's endpoints (``runtime.engine.metrics_audit.MetricsAudit`` is
    one)."""

    @property
    def tasks(self) -> Mapping[str, Task]: ...

    @property
    def routes(self) -> Mapping[int, _Routes]: ...


@dataclass(frozen=True)
class Diagnosis:
    """The JSON section and the per-episode facts (for the HTML trace viewer)."""

    section: dict[str, Any]
    facts: tuple[EpisodeFacts, ...]


def recall_conditions(spec: ScoringSpec) -> frozenset[str]:
    """The conditions Recall@5 applies to (none when the experiment has no such metric)."""
    return frozenset(spec.metric(RECALL_METRIC).applies_to) if _has(spec, RECALL_METRIC) else frozenset()


def trace_facts(trace: EpisodeTrace, source: EpisodeSource, recall_applies: frozenset[str]) -> EpisodeFacts:
    """One episode's facts, from its trace as read (``read_trace``) and its frozen task and catalog."""
    return episode_facts(
        trace,
        source.tasks[trace.task_id],
        source.routes[trace.catalog].by_route,
        ranks=trace.condition in recall_applies,
    )


def stored_facts(inp: DiagnosisInput, source: EpisodeSource) -> list[EpisodeFacts]:
    """Every outcome's facts, in order, each stored trace read here."""
    recall_applies = recall_conditions(inp.spec)
    facts = []
    for outcome in inp.outcomes:
        if outcome.trace_json is None:
            raise ValueError(f"episode {outcome.key.label()}: no stored trace")
        facts.append(trace_facts(read_trace(outcome.trace_json), source, recall_applies))
    return facts


def diagnose(
    inp: DiagnosisInput,
    source: EpisodeSource,
    probe: KeyNameProbe | None,
    key_names_not_applicable: str | None = None,
    facts: Sequence[EpisodeFacts] | None = None,
) -> Diagnosis:
    """``key_names_not_applicable``: why the key-name kinds do not apply to the experiment's strategy
    (None: they apply, and ``probe`` computes them). ``facts``: each outcome's ``trace_facts``, in the
    order of ``inp.outcomes``, when already derived (None: ``stored_facts`` reads every trace)."""
    spec = inp.spec
    recall_applies = recall_conditions(spec)
    if facts is None:
        facts = stored_facts(inp, source)
    elif len(facts) != len(inp.outcomes):
        raise ValueError(f"facts of {len(facts)} episodes handed in for {len(inp.outcomes)} outcomes")
    conditions, catalogs = list(inp.scope.conditions), list(inp.scope.catalogs)
    percentiles = spec.bootstrap.percentiles()
    section = {
        "diagnostics_version": DIAGNOSTICS_VERSION,
        "recall_by_transition": _recall(facts, inp, conditions, catalogs, recall_applies, percentiles),
        "failure_taxonomy": _taxonomy(facts, conditions, catalogs),
        "refresh_anatomy": _refresh_anatomy(facts, conditions, catalogs, probe, key_names_not_applicable),
        "flips": _flips(inp.rows, conditions, catalogs),
        "failed_episodes": [
            [f.task_id, f.condition, f.catalog, f.cause] for f in facts if f.cause is not None
        ],
    }
    return Diagnosis(section=section, facts=tuple(facts))


def _has(spec: Any, metric_id: str) -> bool:
    return any(m.id == metric_id for m in spec.metrics)


def _recall(
    facts: Sequence[EpisodeFacts],
    inp: DiagnosisInput,
    conditions: list[str],
    catalogs: list[int],
    applies: frozenset[str],
    percentiles: tuple[float, float],
) -> dict[str, Any]:
    spec = inp.spec
    columns = RatioColumns(inp.layout)
    plan: list[tuple[str, int]] = [(c, k) for k in catalogs for c in conditions if c in applies]
    strata = [s for s in spec.strata if any(f.stratum == s for f in facts)]
    languages = [lang for lang in spec.languages if any(f.language == lang for f in facts)]
    _recall_columns(columns, facts, plan, strata, languages)
    values = columns.intervals(inp.counts, percentiles)
    by_condition: dict[str, dict[str, Any]] = {}
    for condition, catalog in plan:
        base = f"{condition}|{catalog}"
        by_condition.setdefault(condition, {})[str(catalog)] = {
            "all": values[f"{base}|all"],
            "after": {kind: values[f"{base}|after|{kind}"] for kind in TRANSITIONS},
            "stratum": {s: values[f"{base}|stratum|{s}"] for s in strata},
            "language": {lang: values[f"{base}|language|{lang}"] for lang in languages},
        }
    return {
        "metric": RECALL_METRIC,
        "transitions": list(TRANSITIONS),
        "strata": strata,
        "languages": languages,
        "definition": "Recall@5 at decision points (ratio of sums over tasks), split by the result status "
        "of the tool turn just before the decision point (ok, error, blocked by the gate), by stratum and "
        "by language; intervals from the experiment's bootstrap (the scoring's own resamples)",
        "by_condition": by_condition,
    }


def _recall_columns(
    columns: RatioColumns,
    facts: Sequence[EpisodeFacts],
    plan: list[tuple[str, int]],
    strata: list[str],
    languages: list[str],
) -> None:
    """One ratio column (hits / decision points per task) for each condition x catalog of ``plan``:
    all points, after each transition, per stratum, per language."""
    groups: dict[tuple[str, int], list[EpisodeFacts]] = {}
    for f in facts:
        groups.setdefault((f.condition, f.catalog), []).append(f)
    for condition, catalog in plan:
        episodes = groups.get((condition, catalog), [])

        def add(name: str, keep: Any, episodes: list[EpisodeFacts] = episodes) -> None:
            values = []
            for f in episodes:
                points = [p for p in f.points if keep(f, p)]
                values.append((f.task_id, float(sum(p.hit for p in points)), float(len(points))))
            columns.add(name, values)

        base = f"{condition}|{catalog}"
        add(f"{base}|all", lambda f, p: True)
        for kind in TRANSITIONS:
            add(f"{base}|after|{kind}", lambda f, p, kind=kind: p.after == kind)
        for stratum in strata:
            add(f"{base}|stratum|{stratum}", lambda f, p, s=stratum: f.stratum == s)
        for language in languages:
            add(f"{base}|language|{language}", lambda f, p, lang=language: f.language == lang)


def _taxonomy(facts: Sequence[EpisodeFacts], conditions: list[str], catalogs: list[int]) -> dict[str, Any]:
    by_condition: dict[str, dict[str, Any]] = {}
    for condition in conditions:
        for catalog in catalogs:
            episodes = [f for f in facts if f.condition == condition and f.catalog == catalog]
            failed = [f for f in episodes if not f.passed]
            counts = {code: sum(f.cause == code for f in failed) for code in CAUSE_IDS}
            by_condition.setdefault(condition, {})[str(catalog)] = {
                "episodes": len(episodes),
                "failures": len(failed),
                "causes": counts,
                "refresh_dropped_required": sum(f.dropped_required for f in failed),
            }
    return {
        "precedence": [{"code": code, "title": title} for code, title in CAUSES],
        "rule": "each failed episode gets the first cause of the precedence that holds; the counts of a "
        "condition x catalog sum to its failures (runtime/diagnostics/causes.py)",
        "refresh_dropped_required": "failed episodes in which a later exposure dropped a required route "
        "shown earlier, before any call to it (not a cause: an episode may also have any primary cause)",
        "by_condition": by_condition,
    }


SLOT_KINDS = ("executed", "twin", "key_names_only", "key_names_decisive", "needed")
KEY_NAME_KINDS = ("key_names_only", "key_names_decisive")


def _refresh_anatomy(
    facts: Sequence[EpisodeFacts],
    conditions: list[str],
    catalogs: list[int],
    probe: KeyNameProbe | None,
    not_applicable: str | None = None,
) -> dict[str, Any]:
    if not_applicable is not None:
        probe = None
    by_condition: dict[str, dict[str, Any]] = {}
    for condition in conditions:
        for catalog in catalogs:
            cell = [f for f in facts if f.condition == condition and f.catalog == catalog]
            refreshes, slots, counts = _slot_counts(cell, catalog, probe)
            if refreshes == 0:
                continue
            by_condition.setdefault(condition, {})[str(catalog)] = _anatomy_cell(
                refreshes, slots, counts, not_applicable
            )
    section: dict[str, Any] = {
        "kinds": list(SLOT_KINDS),
        "slot_kinds": dict(SLOT_KIND_DEFINITIONS),
        "note": "kinds overlap: each share is of all refresh slots (state-aware refreshes after turn 1)"
        + (
            ""
            if probe is not None or not_applicable
            else "; key_names_only not computed (no retrieval index)"
        ),
        "by_condition": by_condition,
    }
    if not_applicable is not None:
        section["not_applicable"] = dict.fromkeys(KEY_NAME_KINDS, not_applicable)
    return section


SLOT_KIND_DEFINITIONS = {
    "executed": "the route was already executed earlier in the episode",
    "twin": "a version twin (same capability, side effect and semantic signature) of another "
    "route in the slots or of an executed route",
    "key_names_only": "the route matched the call only through the state JSON's key names (the "
    "same text without them does not match it)",
    "key_names_decisive": "the route holds its slot because of the key names: the same text "
    "without them ranks it below k (includes key_names_only)",
    "needed": "the route is the next required one (what the refresh should bring)",
}


def _slot_counts(
    cell: Sequence[EpisodeFacts], catalog: int, probe: KeyNameProbe | None
) -> tuple[int, int, dict[str, int]]:
    """One condition x catalog's refreshes, their slots, and how many slots each kind took."""
    counts = dict.fromkeys(SLOT_KINDS, 0)
    refreshes = slots = 0
    for f in cell:
        for call in f.refreshes:
            refreshes += 1
            routes = tuple(slot.route_id for slot in call.slots)
            keyless = probe.key_free_match(catalog, call.text, routes) if probe else None
            matched = keyless.matched if keyless is not None else frozenset()
            top = frozenset(keyless.top) if keyless is not None else frozenset()
            for slot in call.slots:
                slots += 1
                counts["executed"] += slot.executed
                counts["twin"] += slot.twin
                counts["needed"] += slot.needed
                if keyless is not None:
                    counts["key_names_only"] += slot.route_id not in matched
                    counts["key_names_decisive"] += slot.route_id not in top
    return refreshes, slots, counts


def _anatomy_cell(
    refreshes: int, slots: int, counts: dict[str, int], not_applicable: str | None
) -> dict[str, Any]:
    """A cell's counts and shares of all slots (the key-name kinds null where they do not apply)."""
    shares: dict[str, float | None] = {k: (round(v / slots, 4) if slots else None) for k, v in counts.items()}
    shown: dict[str, int | None] = dict(counts)
    if not_applicable is not None:
        for kind in KEY_NAME_KINDS:
            shown[kind] = shares[kind] = None
    return {"refreshes": refreshes, "slots": slots, "counts": shown, "shares": shares}


def _flips(rows: Sequence[Mapping[str, Any]], conditions: list[str], catalogs: list[int]) -> dict[str, Any]:
    passed: dict[tuple[str, int], dict[str, bool]] = {}
    for row in rows:
        value = row.get(PASS_METRIC)
        if value is not None:
            passed.setdefault((row["condition"], row["catalog"]), {})[row["task_id"]] = bool(value)
    pairs = []
    for a, b in combinations(conditions, 2):
        by_catalog = {}
        for catalog in catalogs:
            pa, pb = passed.get((a, catalog), {}), passed.get((b, catalog), {})
            common = sorted(set(pa) & set(pb))
            by_catalog[str(catalog)] = {
                "common_tasks": len(common),
                "a_only": [t for t in common if pa[t] and not pb[t]],
                "b_only": [t for t in common if pb[t] and not pa[t]],
            }
        pairs.append({"a": a, "b": b, "by_catalog": by_catalog})
    return {
        "metric": PASS_METRIC,
        "definition": "per catalog size, the tasks that pass under condition a and fail under b (a_only), "
        "and the reverse (b_only)",
        "pairs": pairs,
    }
