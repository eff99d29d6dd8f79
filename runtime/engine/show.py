"""A readable rendering of one episode trace (rich)."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from runtime.engine.trace import EpisodeTrace


def _short(value: object, limit: int = 90) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_trace(trace: EpisodeTrace, console: Console | None = None) -> None:
    console = console or Console()
    console.print(
        f"[bold]{trace.task_id}[/] {trace.stratum}/{trace.language} · {trace.condition}"
        f" · catalog {trace.catalog} · agent {trace.agent} · {trace.tokenizer}"
    )
    for turn in trace.turns:
        console.rule(f"turn {turn.turn}")
        for call in turn.retrieval_calls:
            console.print(f"[cyan]retrieve[/] {_short(call.get('text', ''), 160)}")
            route_ids = call.get("route_ids")
            shown = [str(r) for r in route_ids[:10]] if isinstance(route_ids, list) else []
            console.print(f"  → {', '.join(shown)}")
        exposed = trace.exposed_route_ids(turn)
        console.print(f"exposed ({len(exposed)}): {_short(', '.join(exposed), 160)}")
        console.print(f"tokens: schema {turn.schema_tokens}, input {turn.input_tokens}")
        d = turn.decision
        if d.kind in ("tool_call", "bad_output"):
            console.print(f"[yellow]{d.kind}[/] {d.tool_name} {_short(d.arguments)}")
        else:
            console.print(f"[yellow]{d.kind}[/] {_short(d.answer or d.detail or '')}")
        if turn.audit is not None:
            console.print(f"gate: {turn.audit['decision']} ({turn.audit['reason']})")
        if turn.result is not None:
            r = turn.result
            fields = {f["name"]: f["value"] for f in r.fields}
            console.print(f"result: {r.status} {r.error_class or ''} {_short(fields)}")
    table = Table(title="episode")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("ended by", trace.ended_by)
    table.add_row("passed", str(trace.passed))
    table.add_row("milestones", f"{trace.milestones_reached}/{trace.milestones_total}")
    for key in sorted(trace.metrics):
        table.add_row(key, str(trace.metrics[key]))
    console.print(table)
    for reason in trace.check_reasons:
        console.print(f"[red]check:[/] {reason}")
