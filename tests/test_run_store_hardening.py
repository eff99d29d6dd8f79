"""Run directories under hostile conditions (issue 18, D17 and D18): read-only directories, and writers
racing for the same file."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hostile_support import make_project, run_cli

from runtime.core.atomic_write import write_text_atomic

SR = Path(sys.executable).with_name("sr")
# ``path.with_name(f".{path.name}.tmp")`` and its per-process variant ``.tmp-{os.getpid()}``.
FIXED_TMP = re.compile(r"with_name\(f\"\.\{\w+\.name\}\.tmp")


def test_concurrent_atomic_writes_of_one_file_never_collide(tmp_path: Path) -> None:
    """With a fixed (or per-process) temporary name, two writers delete or rename each other's file."""
    target = tmp_path / "build" / "compiled.json"
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(150):
                write_text_atomic(target, f'{{"writer": {n}, "round": {i}}}\n' * 50)
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert target.read_text().startswith('{"writer": ')
    assert sorted(p.name for p in target.parent.iterdir()) == ["compiled.json"]


def test_no_fixed_temporary_names_remain() -> None:
    repo = Path(__file__).resolve().parents[1]
    for package in ("schemarouter", "compiler", "runtime"):
        for path in (repo / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert not FIXED_TMP.search(text), f"{path}: a fixed temporary name"


def _read_only(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``sr args...`` with ``directory`` mounted read-only in a private mount namespace."""
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", script, str(directory), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def read_only_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not available")
    probe = tmp_path_factory.mktemp("probe")
    if _read_only(probe, "touch", str(probe / "x")).returncode == 0 or (probe / "x").exists():
        pytest.skip("cannot mount a directory read-only here")
    if _read_only(probe, "true").returncode != 0:
        pytest.skip("cannot create a mount namespace here")
    root = make_project(tmp_path_factory.mktemp("ro") / "project", "full")
    args = ["run", "--conditions", "C3", "--catalogs", "100", "--tasks", "S1-en-01", "--no-plots"]
    outcome = run_cli(
        root, [*args, "--workers", "1", "--run-dir", str(root / "runs" / "run")], may_write=("",)
    )
    assert outcome.exit_code == 0, outcome.output
    for leftover in ("episodes.sqlite-wal", "episodes.sqlite-shm", "report.json"):
        (root / "runs" / "run" / leftover).unlink(missing_ok=True)
    return root


def test_status_and_score_of_a_finished_run_work_read_only(read_only_project: Path, tmp_path: Path) -> None:
    root, run = read_only_project, read_only_project / "runs" / "run"
    status = _read_only(root, str(SR), "--project-dir", str(root), "status", str(run))
    assert status.returncode == 0, status.stderr
    assert "terminal: yes" in status.stdout and "Traceback" not in status.stderr
    out = tmp_path / "report"
    scored = _read_only(
        root, str(SR), "--project-dir", str(root), "score", str(run), "--no-plots", "--out", str(out)
    )
    assert scored.returncode == 0, scored.stderr
    assert (out / "report.json").is_file()
    refused = _read_only(root, str(SR), "--project-dir", str(root), "score", str(run), "--no-plots")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert (
        refused.stderr.strip()
        == f"{run}: the run directory is read-only; write the report elsewhere with --out DIR"
    )
    resumed = _read_only(root, str(SR), "--project-dir", str(root), "run", "--resume", "--run-dir", str(run))
    assert resumed.returncode == 1 and "Traceback" not in resumed.stderr
    assert len(resumed.stderr.strip().splitlines()) == 1, resumed.stderr
