"""The dev pilots that chose 0.16's treatment (issue #27): one real dev run per candidate design.

Each candidate writes the treatment condition (SR-5-STATE-AWARE) of ``spec/0.16/conditions.yaml``:
its retriever (``hybrid``, the comparator's strategy, so the original query ranks exactly as the
comparator's does, with reading options that only a state can trigger) and its refresh variant. Then
``sr run -e 0.16 --surface dev --draft --conditions SR-5-STATE-AWARE`` runs 540 real episodes (180
dev tasks x 3 catalogs, reference agent); the run is recorded in ``spec/0.16/pilots.yaml`` as every
draft run is. The comparator's own dev run (``--comparator``) is made once, before any candidate.

    .venv/bin/python scripts/design_016.py [--comparator] [--only NAME ...] [--keep NAME]

``--keep NAME`` leaves that candidate written in conditions.yaml (the chosen design); otherwise the
file is restored. The table (markdown) goes to stdout: per catalog, Recall@5 after ok / error /
blocked, task pass, initial-miss recovery and mean tool-schema tokens, from report.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from variants_successor import _refresh_description as refresh_description

ROOT = Path(__file__).resolve().parent.parent
CONDITIONS = ROOT / "spec" / "0.16" / "conditions.yaml"
TREATMENT, COMPARATOR = "SR-5-STATE-AWARE", "SR-PROGRESSIVE-STATIC"
RUNS = Path("/tmp/design-016")

# The candidates, fixed before the first pilot: the comparator's strategy with the reading option
# that blocked-call fields allow, and the refresh variants of "Protocol variants as data".
BLOCKED = {"missing_inputs": "promote_producers"}
CANDIDATES: dict[str, dict[str, Any]] = {
    "replace": {"params": {}, "refresh": {}},
    "replace+producers": {"params": BLOCKED, "refresh": {}},
    "cursor": {"params": {}, "refresh": {"cursor": True}},
    "cursor+producers": {"params": BLOCKED, "refresh": {"cursor": True}},
    "keep-last+cursor+producers": {
        "params": BLOCKED,
        "refresh": {
            "mode": "replace_keep",
            "keep": {"original_top": 0, "last_attempted": True},
            "cursor": True,
        },
    },
    "keep-top2+last+cursor+producers": {
        "params": BLOCKED,
        "refresh": {
            "mode": "replace_keep",
            "keep": {"original_top": 2, "last_attempted": True},
            "cursor": True,
        },
    },
    "add10+cursor+producers": {"params": BLOCKED, "refresh": {"mode": "add", "cap": 10, "cursor": True}},
    "add15+cursor+producers": {"params": BLOCKED, "refresh": {"mode": "add", "cap": 15, "cursor": True}},
    # Ablations of the best of the above (added after it was known): each part removed alone.
    "add15+producers": {"params": BLOCKED, "refresh": {"mode": "add", "cap": 15}},
    "add15+cursor": {"params": {}, "refresh": {"mode": "add", "cap": 15, "cursor": True}},
}


def _fresh(run: Path) -> Path:
    """A new scratch run directory outside the repository. Its name (the pilot log's run id) carries
    the time, so a rerun of a candidate is its own entry in spec/0.16/pilots.yaml: the log skips an
    entry whose run id and verdict repeat the last one (a resumed run), which a reused name would be."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    run = run.with_name(f"{run.name}-{stamp}")
    shutil.rmtree(run, ignore_errors=True)
    return run


def _sr(*args: str) -> str:
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "sr"), *args], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"sr {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def write_candidate(base: dict[str, Any], name: str) -> dict[str, Any]:
    spec = json.loads(json.dumps(base))
    cand = CANDIDATES[name]
    for condition in spec["conditions"]:
        if condition["id"] != TREATMENT:
            continue
        condition["retriever"] = (
            {"code": "hybrid", "params": dict(cand["params"])} if cand["params"] else {"code": "hybrid"}
        )
        condition["refresh"].update(cand["refresh"])
        rules = refresh_description(condition["refresh"])
        if rules:
            condition["description"] = f"{condition['description']} Refresh rules: {rules}."
    return spec


def figures(run_dir: Path, condition: str) -> list[list[str]]:
    report = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))
    rows = []
    diag = report["diagnostics"]["recall_by_transition"]["by_condition"][condition]
    for catalog in ("100", "250", "500"):
        cells = [catalog]
        after = diag[catalog]["after"]
        for kind in ("ok", "error", "blocked"):
            hit = after.get(kind)
            cells.append(f"{hit['point']:.3f} ({hit['numerator']}/{hit['denominator']})" if hit else "—")
        m = report["metrics"][condition][catalog]
        cells += [f"{m[k]['point']:.3f}" for k in ("task_pass", "initial_miss_recovery")]
        cells.append(f"{m['tool_schema_tokens']['point']:.0f}")
        rows.append(cells)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--comparator", action="store_true")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--keep")
    args = parser.parse_args()
    original = CONDITIONS.read_text(encoding="utf-8")
    base = yaml.safe_load(original)
    print(
        "| design | catalog | R@5 after ok | R@5 after error | R@5 after blocked | task pass | recovery"
        " | schema tokens |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    try:
        if args.comparator:
            run = _fresh(RUNS / "comparator")
            _sr(
                "run",
                "-e",
                "0.16",
                "--surface",
                "dev",
                "--draft",
                "--no-plots",
                "--conditions",
                f"{COMPARATOR},SR-5-STATIC",
                "--run-dir",
                str(run),
            )
            for row in figures(run, COMPARATOR):
                print(f"| comparator ({COMPARATOR}) | " + " | ".join(row) + " |", flush=True)
        for name in args.only or list(CANDIDATES):
            CONDITIONS.write_text(
                yaml.safe_dump(write_candidate(base, name), sort_keys=False, allow_unicode=True, width=100),
                encoding="utf-8",
            )
            run = _fresh(RUNS / name)
            _sr(
                "run",
                "-e",
                "0.16",
                "--surface",
                "dev",
                "--draft",
                "--no-plots",
                "--conditions",
                TREATMENT,
                "--run-dir",
                str(run),
            )
            for row in figures(run, TREATMENT):
                print(f"| {name} | " + " | ".join(row) + " |", flush=True)
    finally:
        if args.keep:
            CONDITIONS.write_text(
                yaml.safe_dump(
                    write_candidate(base, args.keep), sort_keys=False, allow_unicode=True, width=100
                ),
                encoding="utf-8",
            )
        else:
            CONDITIONS.write_text(original, encoding="utf-8")


if __name__ == "__main__":
    main()
