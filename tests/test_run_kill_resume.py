"""kill -9 in the middle of a run, then --resume: nothing duplicated, nothing half-written, workers gone,
and the scores equal those of an uninterrupted run."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from run_fake_engine import FakeEngine, full_scope
from run_support import execute, request, score

from runtime.run import RunScope, read_manifest
from runtime.run.resultset import load_result_set
from runtime.run.store import STORE_FILE, EpisodeStore

TESTS = Path(__file__).resolve().parent

SCRIPT = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from run_fake_engine import FakeEngine
from run_support import execute, request
from test_run_kill_resume import kill_scope
scope = kill_scope()
execute(Path({root!r}), request(scope), engine=FakeEngine(sleep_s=0.004, tasks=scope.tasks), workers=2,
        run_dir=Path({run_dir!r}))
"""


def kill_scope() -> RunScope:
    tasks = [t for t in full_scope().tasks if t.stratum in ("two_step_state", "typed_unit_transition")]
    return full_scope(tasks, catalogs=(100, 250))  # 72 tasks x 5 conditions x 2 catalogs = 720 episodes


def _committed(run_dir: Path) -> int:
    if not (run_dir / STORE_FILE).is_file():
        return 0
    try:
        with EpisodeStore(run_dir, readonly=True) as store:
            return len(store.committed_keys())
    except Exception:  # the store is being created
        return 0


def _processes_mentioning(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def test_kill_9_mid_run_then_resume_scores_like_an_uninterrupted_run(tmp_path: Path) -> None:
    root = tmp_path / "killed"
    run_dir = root / "runs" / "victim"
    script = tmp_path / "kill_me_marker_7f3a.py"
    script.write_text(SCRIPT.format(tests=str(TESTS), root=str(root), run_dir=str(run_dir)))
    proc = subprocess.Popen([sys.executable, str(script)], cwd=TESTS.parent)
    deadline = time.monotonic() + 60
    while _committed(run_dir) < 150 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()

    # The workers die with their parent (no orphan keeps writing or holding the lock).
    deadline = time.monotonic() + 5
    while _processes_mentioning(script.name) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_mentioning(script.name) == []

    connection = sqlite3.connect(run_dir / STORE_FILE)
    assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    connection.close()
    killed_at = _committed(run_dir)
    assert 150 <= killed_at < 720
    assert read_manifest(run_dir).sessions[-1].finished_at is None  # the dead session never finished

    execute(root, request(kill_scope()), run_dir=run_dir, resume=True, workers=2)
    state = load_result_set([run_dir]).dirs[0]
    assert state.shard_complete and len(state.committed) == 720
    second = read_manifest(run_dir).sessions[-1]
    assert second.committed == 720 - killed_at  # resume ran exactly the episodes not committed

    clean = execute(tmp_path / "clean", request(kill_scope()), engine=FakeEngine(tasks=kill_scope().tasks))
    resumed_scores = score([run_dir], tmp_path / "out-resumed", iterations=2000)
    clean_scores = score([clean], tmp_path / "out-clean", iterations=2000)
    assert resumed_scores.report == clean_scores.report
    for name in ("report.json", "per_task.jsonl"):
        assert (tmp_path / "out-resumed" / name).read_bytes() == (tmp_path / "out-clean" / name).read_bytes()
