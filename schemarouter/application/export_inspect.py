"""A run as inspect_ai eval logs, built with inspect_ai's own log models and written by its own writer
(``inspect_ai.log.write_eval_log``), so ``inspect_ai.log.read_eval_log`` and ``inspect view`` read them.

One log per condition x catalog size (an inspect "task" is one configuration evaluated on a dataset):

- ``eval``: task ``schemarouter/<experiment>/<condition>/catalog-<size>`` (the log list tells the
  catalog sizes apart), model ``schemarouter/<agent>``, run ID, dataset the surface (evaluation, or the
  pilot's), metadata the experiment, freeze root, catalog, condition and whether the run is a pilot;
  ``created`` is the run's creation time; the headline metric is ``task_pass``;
- one sample per task and epoch (id the task ID, input its visible query, no target: the gold plan is
  never exported into a transcript), with the episode's messages and events
  (``export_inspect_events.py``: model events with the exposed tools, tool events with the gate's
  decision, info events with each retrieval call) and two scores, in this order: ``task_pass`` (0 or 1,
  ``pass``/``fail``, the check's reasons as the explanation), the primary score, which ``inspect view``
  shows in its SCORE column; and ``schemarouter``, every other number of the task's per-task row;
- ``results``: ``task_pass`` first (its ``mean``), then ``schemarouter`` with every other metric of the
  report in metrics.yaml order; each value is report.json's point estimate (a ratio metric's ratio of
  sums, as the gate reads it) with its task-cluster bootstrap interval in the metric's metadata.

``.eval`` files are zip archives. inspect_ai stamps each entry with its write time; the archive is then
copied entry by entry (same order, names, compression method and contents) with every entry stamped
at the run's creation time instead (``stamped_archive``), so two exports of one run are byte-identical.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runtime.catalog.io import load_catalog_with_digest
from runtime.catalog.model import Catalog
from runtime.core.errors import SchemaRouterError
from runtime.core.progress import Progress, announce
from runtime.scoring.per_task import KEY_FIELDS
from schemarouter.application.export_inspect_events import episode_transcript, tool_infos
from schemarouter.application.export_tables import Episode, Row, RunTables

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample, EvalSpec
    from inspect_ai.tool import ToolInfo

    from runtime.run.manifest import RunManifest

PRIMARY = "task_pass"  # the first score and the headline metric: inspect view's SCORE column


def _inspect() -> Any:
    try:
        import inspect_ai.log
    except ImportError:
        raise SchemaRouterError(
            "sr export --format inspect needs inspect_ai: pip install -e '.[bench]' "
            "(or pip install inspect-ai)"
        ) from None
    return inspect_ai.log


def inspect_log_groups(tables: RunTables) -> dict[tuple[str, int], list[tuple[Episode, Row]]]:
    """The episodes (with their per-task rows) of each log: condition x catalog, in the store's order."""
    rows = {(r["task_id"], r["condition"], r["catalog"], r.get("epoch", 1)): r for r in tables.per_task}
    groups: dict[tuple[str, int], list[tuple[Episode, Row]]] = {}
    for episode in tables.episodes:
        t = episode.trace
        row = rows[(t.task_id, t.condition, t.catalog, t.epoch or 1)]
        groups.setdefault((t.condition, t.catalog), []).append((episode, row))
    return groups


def write_inspect_logs(tables: RunTables, out_dir: Path, *, progress: Progress | None = None) -> list[Path]:
    """Write one ``.eval`` log per condition x catalog into ``out_dir``; the files written (``progress``:
    each log written)."""
    log_api = _inspect()
    groups = inspect_log_groups(tables)
    written: list[Path] = []
    out_dir.mkdir(parents=True, exist_ok=True)
    tools_of: dict[int, dict[str, ToolInfo]] = {}
    announce(progress, "inspect logs", 0, len(groups), "logs")
    for (condition, catalog), members in groups.items():
        if catalog not in tools_of:
            tools_of[catalog] = tool_infos(_catalog(tables, catalog, members))
        log = _log(tables, condition, catalog, members, tools_of[catalog])
        target = out_dir / f"{tables.manifest.run_id}_{condition}_{catalog}.eval"
        fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{target.name}.", suffix=".eval")
        os.close(fd)
        try:
            log_api.write_eval_log(log, tmp, format="eval")
            stamped_archive(Path(tmp), tables.manifest.created_at)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        written.append(target)
        announce(progress, "inspect logs", len(written), len(groups), "logs")
    return written


def stamped_archive(path: Path, when: datetime) -> None:
    """Rewrite the zip archive at ``path`` with every entry's time set to ``when`` (UTC, to the two
    seconds a zip entry can hold; never before 1980, the format's epoch): its names, order, compression
    method and contents stay as they were."""
    stamp = max(when.astimezone(UTC).timetuple()[:6], (1980, 1, 1, 0, 0, 0))
    copy = path.with_name(path.name + ".stamped")
    try:
        with zipfile.ZipFile(path) as source, zipfile.ZipFile(copy, "w") as target:
            for entry in source.infolist():
                info = zipfile.ZipInfo(entry.filename, date_time=stamp)
                info.compress_type = entry.compress_type
                info.external_attr = entry.external_attr
                target.writestr(info, source.read(entry))
        os.replace(copy, path)
    finally:
        if copy.exists():
            copy.unlink()


def _catalog(tables: RunTables, size: int, members: list[tuple[Episode, Row]]) -> Catalog:
    """The catalog the episodes exposed routes from, checked against the digest their traces name."""
    catalog, digest = load_catalog_with_digest(tables.catalogs_dir, size)
    for episode, _ in members:
        named = episode.trace.catalog_digest
        if named is not None and named != digest:
            raise SchemaRouterError(
                f"{tables.catalogs_dir}: catalog {size} is not the one episode {episode.trace.task_id} "
                f"({episode.trace.condition}) exposed routes from ({named} != {digest}); not exported"
            )
    return catalog


def _log(
    tables: RunTables,
    condition: str,
    catalog: int,
    members: list[tuple[Episode, Row]],
    tools: dict[str, ToolInfo],
) -> EvalLog:
    from inspect_ai.log import EvalLog, EvalPlan, EvalResults, EvalStats

    manifest = tables.manifest
    created = manifest.created_at.isoformat()
    finished = next(
        (s.finished_at for s in reversed(manifest.sessions) if s.finished_at), manifest.created_at
    )
    model = f"schemarouter/{manifest.agent.name}"
    ordered = sorted(members, key=lambda m: (m[0].trace.task_id, m[0].trace.epoch or 1))
    samples = [
        _sample(episode, row, tools=tools, model=model, when=manifest.created_at) for episode, row in ordered
    ]
    return EvalLog(
        status="success",
        eval=_spec(manifest, condition, catalog, model, samples),
        plan=EvalPlan(name="schemarouter"),
        results=EvalResults(
            total_samples=len(samples),
            completed_samples=len(samples),
            scores=_results(tables.report, condition, catalog, [row for _, row in members]),
        ),
        stats=EvalStats(started_at=created, completed_at=finished.isoformat()),
        samples=samples,
    )


def _spec(
    manifest: RunManifest, condition: str, catalog: int, model: str, samples: list[EvalSample]
) -> EvalSpec:
    """The log's task, dataset, model and metadata: one condition x catalog of the run."""
    from inspect_ai.log import EvalConfig, EvalDataset, EvalSpec
    from inspect_ai.log._log import HeadlineMetric

    surface = manifest.surface.name if manifest.surface is not None else "evaluation"
    return EvalSpec(
        run_id=manifest.run_id,
        eval_id=f"{manifest.run_id}-{condition}-{catalog}",
        task_id=f"{manifest.experiment_id}-{condition}-{catalog}",
        created=manifest.created_at.isoformat(),
        task=f"schemarouter/{manifest.experiment_id}/{condition}/catalog-{catalog}",
        dataset=EvalDataset(name=f"surface:{surface}", samples=len({s.id for s in samples})),
        model=model,
        config=EvalConfig(epochs=max((s.epoch for s in samples), default=1)),
        packages=dict(manifest.packages),
        metadata={
            "experiment": manifest.experiment_id,
            "freeze_root": manifest.freeze.root_hash,
            "catalog": catalog,
            "condition": condition,
            "pilot": manifest.surface is not None,
        },
        headline_metric=HeadlineMetric(scorer=PRIMARY, metric="mean"),
    )


def _sample(episode: Episode, row: Row, *, tools: dict[str, ToolInfo], model: str, when: datetime) -> Any:
    from inspect_ai.log import EvalSample
    from inspect_ai.scorer import Score

    trace = episode.trace
    values = {
        k: v
        for k, v in row.items()
        if k not in KEY_FIELDS and k not in (PRIMARY, "epoch") and isinstance(v, int | float)
    }
    transcript = episode_transcript(episode, tools=tools, model=model, when=when)
    primary = row.get(PRIMARY)
    return EvalSample(
        id=trace.task_id,
        epoch=trace.epoch or 1,
        input=episode.task.visible().query,
        target="",
        messages=transcript.messages,
        events=transcript.events,
        scores={  # the primary score first: inspect view lists the first
            PRIMARY: Score(
                value=primary if isinstance(primary, int | float) else int(trace.passed),
                answer="pass" if trace.passed else "fail",
                explanation="; ".join(trace.check_reasons) or None,
            ),
            "schemarouter": Score(value=values),
        },
        metadata={
            "stratum": trace.stratum,
            "language": trace.language,
            "condition": trace.condition,
            "catalog": trace.catalog,
            "ended_by": trace.ended_by,
            "milestones_reached": trace.milestones_reached,
            "milestones_total": trace.milestones_total,
        },
    )


def _results(report: dict[str, Any], condition: str, catalog: int, rows: list[Row]) -> list[Any]:
    """``task_pass`` first, then every other metric of the report in metrics.yaml order: report.json's
    point estimate with its interval (the mean over the rows where the report has no point)."""
    from inspect_ai.log import EvalMetric, EvalScore

    block = report.get("metrics", {}).get(condition, {}).get(str(catalog), {})
    order = [m["id"] for m in report.get("metric_definitions", [])] or sorted(block)

    def metric(name: str, label: str) -> Any:
        interval = block.get(name)
        if interval is not None and interval.get("point") is not None:
            meta = {"ci_low": interval.get("ci_low"), "ci_high": interval.get("ci_high")}
            return EvalMetric(name=label, value=interval["point"], metadata=meta)
        values = [r[name] for r in rows if isinstance(r.get(name), int | float)]
        return EvalMetric(name=label, value=sum(values) / len(values) if values else float("nan"))

    others = {name: metric(name, name) for name in order if name != PRIMARY and name in block}
    return [
        EvalScore(name=PRIMARY, scorer=PRIMARY, metrics={"mean": metric(PRIMARY, "mean")}),
        EvalScore(name="schemarouter", scorer="schemarouter", metrics=others),
    ]
