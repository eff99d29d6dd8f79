"""``sr compare``'s text: who the two runs are, whether they differ in experiment or freeze root, the
paired differences B - A per catalog size, and the task-pass flips."""

from __future__ import annotations

from runtime.diagnostics.compare import PairedComparison
from runtime.report.explain import Table, render_text
from runtime.report.intervals_text import fmt_interval


def compare_header(result: PairedComparison, label_a: str, label_b: str) -> list[str]:
    lines = []
    for name, label, ident in (("A", label_a, result["a"]), ("B", label_b, result["b"])):
        lines.append(
            f"RUN_{name}: {label}: experiment {ident['experiment_id']}, freeze root "
            f"{ident['freeze_root_hash'] or 'none'}, agent {ident['agent']}, surface {ident['surface']}, "
            f"verdict {ident['verdict']}"
        )
    if result["differs"]:
        what = ", ".join(
            {"experiment_id": "experiment", "freeze_root_hash": "freeze root"}.get(k, k)
            for k in result["differs"]
        )
        lines.append(f"These runs DIFFER in {what}: the comparison is allowed and descriptive, never a gate.")
    else:
        lines.append("Same experiment, freeze root, agent and surface.")
    lines.append(
        f"Common: {result['common_tasks']} tasks, {result['common_episodes']} episodes; paired bootstrap "
        f"over the common tasks ({result['bootstrap']['iterations']:,} resamples, seed "
        f"{result['bootstrap']['seed']}, RUN_A's spec)."
    )
    lines += [f"Note: {n}" for n in result["notes"]]
    return lines


def compare_tables(result: PairedComparison, titles: dict[str, str]) -> list[Table]:
    shim = {
        "bootstrap": {"iterations": result["bootstrap"]["iterations"]},
        "scope": {"tasks_per_cell": {"max": result["max_tasks_per_cell"]}},
    }
    conditions = list(result["by_condition"])
    catalogs = sorted({k for block in result["by_condition"].values() for k in block}, key=int)
    tables: list[Table] = []
    for k in catalogs:
        present = [c for c in conditions if k in result["by_condition"][c]]
        metric_ids: list[str] = []
        for c in present:
            metric_ids += [m for m in result["by_condition"][c][k] if m not in metric_ids]
        metric_ids.sort(key=lambda m: list(titles).index(m) if m in titles else len(titles))
        rows = [
            [titles.get(m, m), *(fmt_interval(result["by_condition"][c][k].get(m), shim) for c in present)]
            for m in metric_ids
        ]
        tables.append(
            (f"Paired differences B - A at catalog {k} (point [95% CI])", ["metric", *present], rows)
        )
    rows = []
    for c in conditions:
        for k in catalogs:
            cell = result["flips"].get(c, {}).get(k)
            if cell is None:
                continue
            rows.append(
                [
                    c,
                    k,
                    str(cell["tasks"]),
                    str(len(cell["a_only"])),
                    str(len(cell["b_only"])),
                    ", ".join(cell["a_only"][:6]) or "—",
                    ", ".join(cell["b_only"][:6]) or "—",
                ]
            )
    tables.append(
        (
            "Task-pass flips",
            [
                "condition",
                "catalog",
                "tasks",
                "A passes, B fails",
                "B passes, A fails",
                "A only (first 6)",
                "B only (first 6)",
            ],
            rows,
        )
    )
    return tables


def render_compare(result: PairedComparison, label_a: str, label_b: str, titles: dict[str, str]) -> str:
    return (
        "\n".join(compare_header(result, label_a, label_b))
        + "\n\n"
        + render_text(compare_tables(result, titles))
    )
