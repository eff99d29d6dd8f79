"""The loaded engine is set aside from the cyclic collector for a session (runtime/run/long_lived.py).

Every episode, inline or in a worker process, threads or not, runs with the engine out of the
collector's generations (``gc.get_freeze_count() > 0``), and the session gives everything back when it
ends, so a process that runs many sessions (this test run) keeps nothing frozen between them.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path

import pytest
from run_fake_engine import FakeEngine, FakeTrace
from run_support import execute, request, small_scope

from runtime.run import LoadedEngine, TaskRef


@dataclass(frozen=True)
class _Counting(FakeEngine):
    freeze_log: Path | None = None  # one line per episode: objects set aside when it ran

    def run(self, loaded: LoadedEngine, task: TaskRef, condition_id: str, catalog_size: int) -> FakeTrace:
        assert self.freeze_log is not None
        with self.freeze_log.open("a", encoding="utf-8") as f:
            f.write(f"{gc.get_freeze_count()}\n")
        return super().run(loaded, task, condition_id, catalog_size)


@pytest.mark.parametrize(("workers", "threads"), [(1, 1), (1, 4), (2, 1), (2, 3)])
def test_episodes_run_with_the_engine_set_aside_and_the_session_gives_it_back(
    tmp_path: Path, workers: int, threads: int
) -> None:
    gc.unfreeze()  # whatever an earlier test in this process left
    log = tmp_path / "freeze.log"
    scope = small_scope()
    engine = _Counting(tasks=scope.tasks, freeze_log=log)
    execute(tmp_path, request(scope), engine=engine, workers=workers, threads=threads)
    counts = [int(line) for line in log.read_text(encoding="utf-8").split()]
    assert len(counts) == len(scope.episode_keys())
    assert min(counts) > 0
    assert gc.get_freeze_count() == 0


def test_a_host_that_froze_objects_itself_keeps_them_frozen(tmp_path: Path) -> None:
    gc.unfreeze()
    gc.freeze()  # the host application's own choice, before the session
    try:
        before = gc.get_freeze_count()
        scope = small_scope()
        engine = _Counting(tasks=scope.tasks, freeze_log=tmp_path / "freeze.log")
        execute(tmp_path, request(scope), engine=engine, workers=1)
        # Neither given back (0) nor added to (the engine's objects); a few frozen objects may be freed
        # by reference counting meanwhile.
        assert 0 < gc.get_freeze_count() <= before
    finally:
        gc.unfreeze()
