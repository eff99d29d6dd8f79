"""Behavioural deviations: which conditions of a successor behave differently from its parent's.

A textual diff says what a successor's files change; it cannot say what that change does to the
conditions. Here both experiments run the same canary episodes (``canaries.py``: the first tasks of
every stratum of each one's development surface, every condition, the smallest catalog, the reference
agent), and each condition's episodes are compared by what the condition did: the exposures and the
rankings it used per turn, the agent's decisions and the typed results. A condition whose behaviour
moved is a difference of kind ``protocol``, unless it is the condition the change is for: the
successor's gate treatment. So a treatment that also moves its comparator (0.15's ``typed_state``,
which reranks the original query too, moves SR-5-STATIC and SR-PROGRESSIVE-STATIC) is a protocol
deviation, named per condition, with its own rationale.
"""

from __future__ import annotations

from compiler.deviations import (
    BEHAVIOUR_PREFIX,
    DeviationReport,
    Difference,
    deviation_report,
    update_log,
)
from compiler.experiments import lineage_of
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject, JSONValue
from schemarouter.project import ProjectPaths


def _behaviour(trace: JSONObject) -> JSONValue:
    """What a condition did in one episode: exposures and rankings, decisions, typed results."""
    from schemarouter.application.canaries import decision_items, exposure_items, result_items

    return [exposure_items(trace), decision_items(trace), result_items(trace)]


def _episodes(paths: ProjectPaths) -> tuple[dict[str, JSONObject], str]:
    from schemarouter.application.canaries import run_canary_episodes
    from schemarouter.application.compiled import compiled_without_writing

    compiled = compiled_without_writing(paths)
    return run_canary_episodes(paths, compiled).traces, compiled.gate.treatment


def behavioural_differences(paths: ProjectPaths) -> list[Difference]:
    """One difference per condition (of both experiments) whose canary episodes behave differently
    under the successor than under its parent; none for an experiment without a parent."""
    from schemarouter.application.canaries import dev_surface_available, item_hash

    lineage = lineage_of(paths)
    if lineage is None or not dev_surface_available(paths):
        return []
    parent = paths.with_experiment(lineage.parent)
    old, _ = _episodes(parent)
    new, treatment = _episodes(paths)
    if {k.split("/")[0] for k in old} != {k.split("/")[0] for k in new}:
        raise SchemaRouterError(
            f"experiment {paths.experiment}: its canary tasks are not its parent's "
            "(the development surfaces differ); behaviour cannot be compared"
        )
    # A condition only one of the two has is a textual deviation of conditions.yaml already (added or
    # removed); behaviour is compared for the conditions both run.
    common = set(old) & set(new)
    moved: dict[str, list[str]] = {}
    for key in sorted(common):
        condition = str(new[key]["condition"])  # EpisodeTrace.condition, a string
        moved.setdefault(condition, [])
        if item_hash(_behaviour(old[key])) != item_hash(_behaviour(new[key])):
            moved[condition].append(key)
    out = []
    for condition, keys in moved.items():
        if not keys:
            continue
        total = sum(1 for k in common if new[k]["condition"] == condition)
        kind = "spec" if condition == treatment else "protocol"
        role = "the treatment" if condition == treatment else "not the treatment"
        out.append(
            Difference(
                "behaviour",
                f"condition {condition} ({role}): {len(keys)} of {total} canary episodes behave differently "
                f"from {lineage.parent}",
                kind,
            )
        )
    return out


def _with_behaviour(report: DeviationReport, paths: ProjectPaths, found: list[Difference]) -> DeviationReport:
    from compiler.deviations import read_log

    logged = {str(e.get("change")): str(e.get("rationale") or "") for e in read_log(paths)}
    current = {d.change for d in found}
    stale = [c for c in logged if c.startswith(BEHAVIOUR_PREFIX) and c not in current]
    return DeviationReport(
        parent=report.parent,
        differences=[*report.differences, *found],
        rationales={**report.rationales, **{d.change: logged.get(d.change, "") for d in found}},
        stale=[*report.stale, *stale],
    )


def full_deviation_report(paths: ProjectPaths, *, update: bool = False) -> DeviationReport | None:
    """`sr deviations [--update]`: the textual differences and the behavioural ones."""
    if lineage_of(paths) is None:
        return deviation_report(paths)
    found = behavioural_differences(paths)
    if update:
        return update_log(paths, extra=found)
    report = deviation_report(paths)
    assert report is not None
    return _with_behaviour(report, paths, found)


def require_declared_behaviour(paths: ProjectPaths) -> None:
    """`sr freeze` of a successor: refuse while a behavioural deviation has no rationale (or is stale)."""
    if lineage_of(paths) is None:
        return
    report = full_deviation_report(paths)
    assert report is not None
    missing = [d for d in report.missing if d.change.startswith(BEHAVIOUR_PREFIX)]
    stale = [c for c in report.stale if c.startswith(BEHAVIOUR_PREFIX)]
    if not (missing or stale):
        return
    where = paths.display("spec/deviations.yaml")
    lines = [
        f"{where}: refusing to freeze: every behavioural deviation from {report.parent} needs a rationale"
    ]
    lines += [f"{where}: MISSING rationale: {d.change}" for d in missing]
    lines += [f"{where}: STALE entry (no longer a difference): {c}" for c in stale]
    lines.append(f"Write the rationales in {where} (sr deviations --update adds the missing entries).")
    raise SchemaRouterError("\n".join(lines))
