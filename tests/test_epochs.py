"""Repeated trials: keys, scope, store and scoring with --epochs N, and nothing changed with one epoch."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

import numpy as np
import pytest

from runtime.run.manifest import AgentConfig, FreezeState, config_hash
from runtime.run.scope import EpisodeKey, RunScope, Shard, TaskRef
from runtime.run.store import EpisodeStore
from runtime.run.trace_blob import pack_trace
from runtime.scoring.bootstrap import resample_counts, resample_indices, task_layout
from runtime.scoring.epochs import collapse_epochs, epoch_spread, pass_hat_k
from runtime.scoring.estimates import estimate
from runtime.spec_model.metrics import MetricSpec

TASKS = tuple(TaskRef(task_id=f"t{i}", stratum="s", language="en") for i in range(3))


def scope(epochs: int = 1) -> RunScope:
    return RunScope(conditions=("C",), catalogs=(100,), tasks=TASKS, preregistered=False, epochs=epochs)


def test_one_epoch_keeps_every_key_label_and_identity() -> None:
    one = scope()
    assert one.model_dump(mode="json") == {
        "conditions": ["C"],
        "catalogs": [100],
        "tasks": [t.model_dump() for t in TASKS],
        "preregistered": False,
    }
    assert one.episode_keys() == [EpisodeKey(t.task_id, "C", 100) for t in TASKS]
    assert EpisodeKey("t0", "C", 100).label() == "t0 | C | 100"
    agent = AgentConfig(name="reference", config={}, tokenizer={})
    common = dict(
        freeze=FreezeState(root_hash="r", draft=False),
        git_commit="g",
        agent=agent,
        shard=Shard(index=1, count=1),
    )
    assert config_hash(scope=one, **common) != config_hash(scope=scope(2), **common)
    assert "warnings" not in agent.model_dump(mode="json")


def test_epochs_are_adjacent_within_a_task_and_shards_cover_them() -> None:
    keys = scope(3).episode_keys()
    assert [(k.task_id, k.epoch) for k in keys[:4]] == [("t0", 1), ("t0", 2), ("t0", 3), ("t1", 1)]
    assert keys[1].label() == "t0 | C | 100 | epoch 2"
    shards = [scope(3).shard_keys(Shard(index=i, count=2)) for i in (1, 2)]
    assert sorted(shards[0] + shards[1]) == sorted(keys)
    assert RunScope.model_validate(scope(3).model_dump(mode="json")) == scope(3)
    with pytest.raises(ValueError):
        scope(0)


def test_the_store_keeps_epochs_apart_and_reads_a_store_from_before_epochs(tmp_path: Path) -> None:
    with EpisodeStore(tmp_path, create=True) as store:
        for epoch in (1, 2):
            key = EpisodeKey("t0", "C", 100, epoch)
            store.record_event(key, kind="x", error_type="E", message="m", traceback="", session=1)
            store.commit_episode(
                key, metrics={"m": epoch}, wall_latency_ms=1.0, trace_zlib=pack_trace(f"{epoch}"), session=1
            )
        assert store.committed_keys() == {EpisodeKey("t0", "C", 100), EpisodeKey("t0", "C", 100, 2)}
        assert store.read_trace(EpisodeKey("t0", "C", 100, 2)) == "2"
        assert all(e.resolved_at for e in store.events())
        outcomes = store.read_outcomes([EpisodeKey("t0", "C", 100, 2), EpisodeKey("t0", "C", 100)])
        assert [o.metrics["m"] for o in outcomes] == [2, 1]

    old = tmp_path / "old"
    old.mkdir()
    db = sqlite3.connect(old / "episodes.sqlite")
    db.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('store_version', '1');"
        "CREATE TABLE episodes (task_id TEXT NOT NULL, condition TEXT NOT NULL, catalog INTEGER NOT NULL,"
        " metrics_json TEXT NOT NULL, wall_latency_ms REAL, trace_zlib BLOB NOT NULL,"
        " session INTEGER NOT NULL, committed_at TEXT NOT NULL, PRIMARY KEY (task_id, condition, catalog));"
        "CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, task_id TEXT, condition TEXT,"
        " catalog INTEGER, kind TEXT NOT NULL, error_type TEXT NOT NULL, message TEXT NOT NULL,"
        " traceback TEXT NOT NULL, session INTEGER NOT NULL, occurred_at TEXT NOT NULL, resolved_at TEXT);"
    )
    db.execute(
        "INSERT INTO episodes VALUES ('t0', 'C', 100, '{}', 1.0, ?, 1, 'now')", (zlib.compress(b"old"),)
    )
    db.commit()
    db.close()
    with EpisodeStore(old, readonly=True) as store:  # read as it is: every episode is epoch 1
        assert store.committed_keys() == {EpisodeKey("t0", "C", 100)}
        assert store.read_trace(EpisodeKey("t0", "C", 100)) == "old"
    with EpisodeStore(old) as store:  # opened for writing: the column is added, default 1
        store.commit_episode(
            EpisodeKey("t1", "C", 100), metrics={}, wall_latency_ms=None, trace_zlib=pack_trace(""), session=2
        )
        assert store.committed_keys() == {EpisodeKey("t0", "C", 100), EpisodeKey("t1", "C", 100)}


def rows(passes: dict[str, list[int]]) -> list[dict]:
    out = []
    for task, trials in passes.items():
        for epoch, passed in enumerate(trials, 1):
            out.append(
                {
                    "task_id": task,
                    "condition": "C",
                    "catalog": 100,
                    "epoch": epoch,
                    "stratum": "s",
                    "language": "en",
                }
                | {"task_pass": passed, "hits": passed, "points": 2}
            )
    return out


def test_pass_hat_k_follows_tau_bench() -> None:
    # c of n = 3 trials passed: 3, 2, 1, 0. pass^k = mean over tasks of C(c, k) / C(n, k).
    data = rows({"t0": [1, 1, 1], "t1": [1, 0, 1], "t2": [0, 0, 1], "t3": [0, 0, 0]})
    got = pass_hat_k(data, 3, conditions=["C"], catalogs=[100])["C"]["100"]
    assert got == {"1": 0.5, "2": pytest.approx((1 + 1 / 3) / 4), "3": 0.25}
    spread = epoch_spread(data, 3, conditions=["C"], catalogs=[100], confidence=0.95)["C"]["100"]
    assert spread["per_epoch"] == [0.5, 0.25, 0.75] and spread["mean"] == 0.5
    assert spread["ci_low"] < 0.5 < spread["ci_high"]


def test_a_tasks_epochs_are_one_bootstrap_cluster() -> None:
    """Each task's mean over its epochs resamples as one unit: two identical epochs give exactly the
    one-epoch intervals, and mixed epochs give the intervals of their per-task means."""
    layout = task_layout(TASKS, strata=["s"], languages=["en"])
    counts = resample_counts(resample_indices(layout, iterations=500, seed=7), layout.n)
    metrics = [
        MetricSpec(
            level="task",
            definition="d",
            id="task_pass",
            title="t",
            unit="1",
            aggregate="mean",
            applies_to=("C",),
            better="higher",
        ),
        MetricSpec(
            level="task",
            definition="d",
            **{"id": "recall", "title": "r", "unit": "1", "aggregate": "ratio", "better": "higher"},
            applies_to=("C",),
            numerator="hits",
            denominator="points",
        ),
    ]
    common = dict(layout=layout, counts=counts, metrics=metrics, conditions=["C"], catalogs=[100], pair=None)
    one = rows({"t0": [1], "t1": [0], "t2": [1]})
    two = rows({"t0": [1, 1], "t1": [0, 0], "t2": [1, 1]})
    assert collapse_epochs([{k: v for k, v in r.items() if k != "epoch"} for r in one], 1) == [
        {k: v for k, v in r.items() if k != "epoch"} for r in one
    ]
    a = estimate(collapse_epochs(one, 2), percentiles=(2.5, 97.5), **common)
    b = estimate(collapse_epochs(two, 2), percentiles=(2.5, 97.5), **common)
    assert a.metrics == b.metrics
    mixed = collapse_epochs(rows({"t0": [1, 0], "t1": [0, 0], "t2": [1, 1]}), 2)
    assert [r["task_pass"] for r in mixed] == [0.5, 0.0, 1.0] and all("epoch" not in r for r in mixed)
    est = estimate(mixed, percentiles=(2.5, 97.5), **common).metrics["C"][100]
    assert est["task_pass"].point == 0.5 and est["recall"].point == pytest.approx(0.25)
    assert np.isfinite(est["task_pass"].ci_low)


def test_repeated_trials_are_never_the_preregistered_scope() -> None:
    from compiler import compile_project
    from runtime.run.request import build_request
    from runtime.surface import load_surface
    from schemarouter.project import ProjectPaths

    paths = ProjectPaths.at(Path(__file__).resolve().parents[1])
    compiled = compile_project(paths, write_manifest=False)
    tasks = list(load_surface(paths.catalogs_dir))
    options = dict(agent=None, conditions=None, catalogs=None, task_filter=None, shard=None)
    one = build_request(compiled, tasks, **options)
    two = build_request(compiled, tasks, **options, epochs=2)
    assert one.scope.preregistered and one.scope.epochs == 1
    assert not two.scope.preregistered and two.scope.epochs == 2
    assert len(two.scope.episode_keys()) == 2 * len(one.scope.episode_keys())
    with pytest.raises(Exception, match="--epochs 0: between 1 and"):
        build_request(compiled, tasks, **options, epochs=0)
