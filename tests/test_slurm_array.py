"""scripts/slurm-array.sh run as a Slurm array would run it (SLURM_ARRAY_TASK_ID set per index), here
one index after another on a subset: the merged shards score exactly like a single run; a requeued task
resumes its own directory; scoring before every shard is done is sealed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from ray_support import SUBSET, run, scored_bytes
from run_support import REPO, recorded_project

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

SCRIPT = REPO / "scripts" / "slurm-array.sh"
SCOPE = [f"--{name}={value}" for name, value in SUBSET.items()]


def _array_task(
    root: Path, *args: str, index: int | None = None, count: int = 3
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env.update(
        SR=str(Path(sys.executable).with_name("sr")),
        SLURM_ARRAY_JOB_ID="4242",
        SR_WORKERS="1",
        COLUMNS="160",
    )
    if index is not None:
        env.update(
            SLURM_ARRAY_TASK_ID=str(index + 9), SLURM_ARRAY_TASK_MIN="10", SLURM_ARRAY_TASK_COUNT=str(count)
        )
    return subprocess.run(
        ["bash", str(SCRIPT), *args], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )


def test_an_array_of_shards_scores_exactly_like_one_run(tmp_path: Path) -> None:
    paths = recorded_project(tmp_path)
    single = run(paths, workers=1, plots=False, run_dir=tmp_path / "single", **SUBSET)
    assert single.exit_code == 0

    for index in (1, 2):
        done = _array_task(paths.root, *SCOPE, index=index)
        assert done.returncode == 0, done.stderr
        assert f"shard {index}/3 complete" in done.stdout
    early = _array_task(paths.root, "score", "--no-plots")
    assert early.returncode == 1 and "sealed" in (early.stdout + early.stderr)
    assert "task_pass" not in early.stdout + early.stderr  # no partial-shard outcome is printed

    assert _array_task(paths.root, *SCOPE, index=3).returncode == 0
    requeued = _array_task(paths.root, *SCOPE, index=2)  # a requeued task continues its own directory
    assert requeued.returncode == 0, requeued.stderr
    assert "committed 0 this session" in requeued.stdout

    scored = _array_task(paths.root, "score", "--no-plots")
    assert scored.returncode == 0, scored.stderr
    runs = paths.root / "runs" / "slurm-4242"
    assert sorted(p.name for p in runs.iterdir()) == [
        "scored",
        "shard-1-of-3",
        "shard-2-of-3",
        "shard-3-of-3",
    ]
    assert scored_bytes(runs / "scored") == scored_bytes(single.run_dir)


def test_an_index_outside_the_array_is_refused(tmp_path: Path) -> None:
    outside = _array_task(tmp_path, index=5, count=3)
    assert outside.returncode == 1 and "is not one of 3 shards" in outside.stderr
    nothing = _array_task(tmp_path, "score")
    assert nothing.returncode == 1 and "no shard directory" in nothing.stderr
