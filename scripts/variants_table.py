"""The dev-surface table of issue #25: each refresh variant alone against the 0.14-like baseline.

For each variant a temporary copy of the project gets the variants successor (variants_successor.py),
then ``sr run -e 0.15 --surface dev --draft --conditions SR-5-STATE-AWARE`` runs the full 180 dev tasks
on every catalog with the reference agent (real episodes, never replays). From each run's report.json
it prints, per catalog: Recall@5 at decision points after ok / error / blocked (what ``sr explain``
shows), task pass and mean tool-schema tokens. The copies are deleted; nothing is written in the repo.

    .venv/bin/python scripts/variants_table.py [--workers 1] > table.md
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "tests"))

import variants_successor  # noqa: E402

CONDITION = "SR-5-STATE-AWARE"
VARIANTS: dict[str, dict[str, Any]] = {
    "baseline (replace, 0.14-like)": {},
    "add, cap 15": {"mode": "add", "cap": 15},
    "replace_keep, keep top 2": {"mode": "replace_keep", "keep_top": 2},
    "cursor": {"cursor": True},
    "blocked-call fields": {"blocked_fields": True},
    "all: replace_keep top 2 + last attempted, cursor, fields": {
        "mode": "replace_keep",
        "keep_top": 2,
        "keep_last": True,
        "cursor": True,
        "blocked_fields": True,
    },
}


def _copy(tmp: Path) -> Path:
    from test_dev_surface import experiments_copy

    root = experiments_copy(tmp, "0.15")
    shutil.copytree(REPO / "spec" / "0.14", root / "spec" / "0.14")
    shutil.copytree(REPO / "catalogs" / "0.14", root / "catalogs" / "0.14")
    return root


STATIC_ARMS = ("SR-5-STATIC", "SR-10-STATIC", "SR-PROGRESSIVE-STATIC")
# The static arms of the same successor: the comparator pinned to another strategy than the
# experiment's (typed_state), or left on it.
PINNINGS: dict[str, dict[str, Any]] = {
    "SR-PROGRESSIVE-STATIC pinned to text_concat": {"comparator_strategy": "text_concat"},
    "every arm on the experiment's typed_state": {"comparator_strategy": None},
}


def run_variant(
    options: dict[str, Any], workers: int, conditions: tuple[str, ...] = (CONDITION,)
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="sr-variant-") as tmp:
        root = _copy(Path(tmp))
        variants_successor.make_successor(root, **options)
        command = [
            str(REPO / ".venv" / "bin" / "sr"), "--project-dir", str(root), "run", "-e", "0.15",
            "--surface", "dev", "--draft", "--conditions", ",".join(conditions), "--workers", str(workers),
            "--no-plots", "--run-dir", str(root / "runs" / "variant"),
        ]  # fmt: skip
        subprocess.run(command, check=True, capture_output=True, text=True)
        return json.loads((root / "runs" / "variant" / "report.json").read_text(encoding="utf-8"))


def _row(name: str, report: dict[str, Any], catalog: str, condition: str = CONDITION) -> str:
    metrics = report["metrics"][condition][catalog]
    by_condition = report["diagnostics"]["recall_by_transition"]["by_condition"]
    after = by_condition[condition][catalog]["after"] if condition in by_condition else {}  # SR-10: no metric
    recall = [
        f"{after[k]['point']:.3f} ({after[k]['numerator']}/{after[k]['denominator']})" if k in after else "—"
        for k in ("ok", "error", "blocked")
    ]
    return (
        f"| {catalog} | {name} | {' | '.join(recall)} | {metrics['task_pass']['point']:.3f} | "
        f"{metrics['tool_schema_tokens']['point']:.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--static", action="store_true", help="the static arms under each comparator pinning")
    args = parser.parse_args()
    if args.static:
        print(
            "| catalog | arm | R@5 after ok | R@5 after error | R@5 after blocked | task pass"
            " | schema tokens |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- |")
        static = {n: run_variant(o, args.workers, STATIC_ARMS) for n, o in PINNINGS.items()}
        for catalog in ("100", "250", "500"):
            for pinning, report in static.items():
                for arm in STATIC_ARMS:
                    print(_row(f"{arm} ({pinning})", report, catalog, arm))
        return
    reports = {name: run_variant(options, args.workers) for name, options in VARIANTS.items()}
    columns = ["catalog", "variant", "R@5 after ok", "R@5 after error", "R@5 after blocked", "task pass"]
    print("| " + " | ".join([*columns, "schema tokens"]) + " |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for catalog in ("100", "250", "500"):
        for name, report in reports.items():
            print(_row(name, report, catalog))


if __name__ == "__main__":
    main()
