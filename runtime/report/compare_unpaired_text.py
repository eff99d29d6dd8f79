"""``sr compare``'s text for two runs that share no episode: who they are, why the comparison is
unpaired, and each run's treatment - comparator contrast with B - A per catalog size."""

from __future__ import annotations

from runtime.diagnostics.compare_unpaired import UnpairedComparison
from runtime.report.explain import Table, render_text
from runtime.report.intervals_text import fmt_interval


def unpaired_header(result: UnpairedComparison, label_a: str, label_b: str) -> list[str]:
    boot = result["bootstrap"]
    contrast = f"{result['treatment']} - {result['comparator']}"
    lines = [
        f"RUN_{name}: {label}: experiment {ident['experiment_id']}, freeze root "
        f"{ident['freeze_root_hash'] or 'none'}, agent {ident['agent']}, surface {ident['surface']}, "
        f"verdict {ident['verdict']}"
        for name, label, ident in (("A", label_a, result["a"]), ("B", label_b, result["b"]))
    ]
    return [
        *lines,
        f"UNPAIRED: {result['why']}, so no task difference can be paired. Compared instead: each run's "
        f"own contrast {contrast} (the gate's treatment - comparator, paired by task within the run), "
        "and B - A of those contrasts over independent resamples.",
        f"Bootstrap: runtime/scoring's stratified task-cluster bootstrap, {boot['iterations']:,} resamples "
        f"per run; RUN_A seed {boot['seed_a']} (its report's), RUN_B seed {boot['seed_b']} "
        f"({boot['seed_b_rule']}).",
        *result.get("suggestions", []),
    ]


def unpaired_tables(result: UnpairedComparison, titles: dict[str, str]) -> list[Table]:
    shim = {"bootstrap": {"iterations": result["bootstrap"]["iterations"]}}
    contrast = f"{result['treatment']} - {result['comparator']}"
    tables: list[Table] = []
    for catalog, block in result["by_catalog"].items():
        rows = [
            [
                titles.get(metric, metric),
                fmt_interval(cell["a"], shim),
                fmt_interval(cell["b"], shim),
                fmt_interval(cell["b_minus_a"], shim),
            ]
            for metric, cell in block.items()
        ]
        tables.append(
            (
                f"Unpaired contrasts {contrast} at catalog {catalog} (point [95% CI])",
                ["metric", "RUN_A", "RUN_B", "B - A (unpaired)"],
                rows,
            )
        )
    return tables


def render_unpaired(result: UnpairedComparison, label_a: str, label_b: str, titles: dict[str, str]) -> str:
    return (
        "\n".join(unpaired_header(result, label_a, label_b))
        + "\n\n"
        + render_text(unpaired_tables(result, titles))
    )
