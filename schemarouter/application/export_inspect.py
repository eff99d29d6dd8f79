"""A run as inspect_ai eval logs, built with inspect_ai's own log models and written by its own writer
(``inspect_ai.log.write_eval_log``), so ``inspect_ai.log.read_eval_log`` and ``inspect view`` read them.

One log per condition x catalog size (an inspect "task" is one configuration evaluated on a dataset):

- ``eval``: task ``schemarouter/<experiment>/<condition>``, model ``schemarouter/<agent>``, run ID,
  dataset the surface (evaluation, or the pilot's), metadata the experiment, freeze root, catalog,
  condition and whether the run is a pilot; ``created`` is the run's creation time;
- one sample per task (id the task ID, input its visible query, no target: the gold plan is never
  exported into a transcript): the transcript as messages (the user's query; each model turn's tool call
  or answer; each typed tool result), and one score ``schemarouter`` whose value is the task's row of
  the per-task table (numbers only) with ``task_pass`` as its answer;
- ``results``: per metric of the per-task table, the mean over the log's samples.

``.eval`` files are zip archives; their entries carry inspect_ai's write time, so the bytes differ
between exports while the content is the same.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from schemarouter.application.export_tables import Episode, Row, RunTables
from schemarouter.errors import SchemaRouterError
from schemarouter.runtime.scoring.per_task import KEY_FIELDS


def _inspect() -> Any:
    try:
        import inspect_ai.log
    except ImportError:
        raise SchemaRouterError(
            "sr export --format inspect needs inspect_ai: pip install -e '.[bench]' "
            "(or pip install inspect-ai)"
        ) from None
    return inspect_ai.log


def write_inspect_logs(tables: RunTables, out_dir: Path) -> list[Path]:
    """Write one ``.eval`` log per condition x catalog into ``out_dir``; the files written."""
    log_api = _inspect()
    groups: dict[tuple[str, int], list[tuple[Episode, Row]]] = {}
    rows = {(r["task_id"], r["condition"], r["catalog"]): r for r in tables.per_task}
    for episode in tables.episodes:
        key = (episode.trace.task_id, episode.trace.condition, episode.trace.catalog)
        groups.setdefault((key[1], key[2]), []).append((episode, rows[key]))
    written = []
    out_dir.mkdir(parents=True, exist_ok=True)
    for (condition, catalog), members in groups.items():
        log = _log(tables, condition, catalog, members)
        target = out_dir / f"{tables.manifest.run_id}_{condition}_{catalog}.eval"
        fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{target.name}.", suffix=".eval")
        os.close(fd)
        try:
            log_api.write_eval_log(log, tmp, format="eval")
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        written.append(target)
    return written


def _log(tables: RunTables, condition: str, catalog: int, members: list[tuple[Episode, Row]]) -> Any:
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalMetric,
        EvalPlan,
        EvalResults,
        EvalSample,
        EvalScore,
        EvalSpec,
        EvalStats,
    )
    from inspect_ai.scorer import Score

    manifest = tables.manifest
    created = manifest.created_at.isoformat()
    finished = next(
        (s.finished_at for s in reversed(manifest.sessions) if s.finished_at), manifest.created_at
    )
    surface = manifest.surface.name if manifest.surface is not None else "evaluation"
    samples = []
    values_of: list[dict[str, float]] = []
    for episode, row in sorted(members, key=lambda m: m[0].trace.task_id):
        values = {k: v for k, v in row.items() if k not in KEY_FIELDS and isinstance(v, int | float)}
        values_of.append(values)
        samples.append(
            EvalSample(
                id=episode.trace.task_id,
                epoch=1,
                input=episode.task.visible().query,
                target="",
                messages=_messages(episode),
                scores={
                    "schemarouter": Score(
                        value=values,
                        answer="pass" if episode.trace.passed else "fail",
                        explanation="; ".join(episode.trace.check_reasons) or None,
                    )
                },
                metadata={
                    "stratum": episode.trace.stratum,
                    "language": episode.trace.language,
                    "condition": condition,
                    "catalog": catalog,
                    "ended_by": episode.trace.ended_by,
                    "milestones_reached": episode.trace.milestones_reached,
                    "milestones_total": episode.trace.milestones_total,
                },
            )
        )
    metrics: dict[str, Any] = {}
    for name in sorted({k for values in values_of for k in values}):
        vals = [values[name] for values in values_of if name in values]
        metrics[name] = EvalMetric(name=name, value=sum(vals) / len(vals))
    spec = EvalSpec(
        run_id=manifest.run_id,
        eval_id=f"{manifest.run_id}-{condition}-{catalog}",
        task_id=f"{manifest.experiment_id}-{condition}-{catalog}",
        created=created,
        task=f"schemarouter/{manifest.experiment_id}/{condition}",
        dataset=EvalDataset(name=f"surface:{surface}", samples=len(samples)),
        model=f"schemarouter/{manifest.agent.name}",
        config=EvalConfig(),
        packages=dict(manifest.packages),
        metadata={
            "experiment": manifest.experiment_id,
            "freeze_root": manifest.freeze.root_hash,
            "catalog": catalog,
            "condition": condition,
            "pilot": manifest.surface is not None,
        },
    )
    return EvalLog(
        status="success",
        eval=spec,
        plan=EvalPlan(name="schemarouter"),
        results=EvalResults(
            total_samples=len(samples),
            completed_samples=len(samples),
            scores=[EvalScore(name="schemarouter", scorer="schemarouter", metrics=metrics)],
        ),
        stats=EvalStats(started_at=created, completed_at=finished.isoformat()),
        samples=samples,
    )


def _messages(episode: Episode) -> list[Any]:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
    from inspect_ai.tool import ToolCall

    messages: list[Any] = [ChatMessageUser(content=episode.task.visible().query)]
    for turn in episode.trace.turns:
        decision = turn.decision
        if decision.kind == "tool_call" and decision.tool_name:
            call_id = f"turn-{turn.turn}"
            args = decision.arguments if isinstance(decision.arguments, dict) else {}
            messages.append(
                ChatMessageAssistant(
                    content="",
                    tool_calls=[ToolCall(id=call_id, function=decision.tool_name, arguments=args)],
                )
            )
            result = turn.result
            body = {} if result is None else result.model_dump(mode="json")
            messages.append(
                ChatMessageTool(
                    content=json.dumps(body, ensure_ascii=False, sort_keys=True),
                    tool_call_id=call_id,
                    function=decision.tool_name,
                )
            )
        elif decision.kind == "final_answer":
            messages.append(
                ChatMessageAssistant(content=json.dumps(decision.answer or {}, ensure_ascii=False))
            )
        else:
            messages.append(
                ChatMessageAssistant(content=f"[{decision.kind}] {decision.detail or ''}".strip())
            )
    return messages
