"""`sr run --executor ray` against a real local Ray cluster (2 CPUs, on loopback, no dashboard).

The scored outputs equal the local executor's byte for byte; a worker killed with SIGKILL mid-run has its
episodes retried (events recorded and resolved, nothing lost or counted twice); a driver killed mid-run
resumes on either executor; the model-call cache is shared by every worker. Needs the `ray` extra.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest
from extras import require_module
from llm_loopback import send_json, serving
from ray_support import (
    RAY_MEMORY,
    SUBSET,
    SUBSET_EPISODES,
    SlowEngine,
    committed_count,
    events,
    model_reply,
    register_by_value,
    run,
    scored_bytes,
    worker_pids,
)
from run_support import recorded_project
from typer.testing import CliRunner

from compiler import compile_project
from runtime.agents import traffic
from runtime.run import read_manifest
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

ray = require_module("ray", extra="ray")

TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A copy of the project and the local executor's scored outputs on the subset (inline, no fork)."""
    tmp = tmp_path_factory.mktemp("ray-project")
    paths = recorded_project(tmp)
    compiled = compile_project(paths)  # once for the module's runs in this process
    local = run(paths, compiled=compiled, workers=1, plots=False, run_dir=tmp / "local", **SUBSET)
    assert local.exit_code == 0
    return {"paths": paths, "compiled": compiled, "local": scored_bytes(local.run_dir)}


@pytest.fixture(scope="module")
def cluster(project: dict[str, Any]) -> Iterator[str]:
    """A local Ray cluster for this module; yields its address for drivers in other processes."""
    # address="local": a new cluster, never one that another `ray start` left on this machine.
    context = ray.init(
        address="local", num_cpus=2, _node_ip_address="127.0.0.1", log_to_driver=False, **RAY_MEMORY
    )
    register_by_value(ray)
    try:
        yield context.address_info["gcs_address"]
    finally:
        ray.shutdown()


def _wait_no_workers(timeout_s: float = 20) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while worker_pids() and time.monotonic() < deadline:
        time.sleep(0.1)
    return worker_pids()


def test_without_an_address_the_run_starts_and_stops_its_own_local_ray(
    project: dict[str, Any], tmp_path: Path
) -> None:
    assert not ray.is_initialized()  # before the module's cluster: this run must start its own
    paths, compiled = project["paths"], project["compiled"]
    outcome = run(
        paths, compiled=compiled, executor="ray", workers=2, plots=False, run_dir=tmp_path / "own", **SUBSET
    )
    assert outcome.exit_code == 0
    assert not ray.is_initialized()  # and stop it
    assert scored_bytes(outcome.run_dir) == project["local"]


def test_sr_run_on_a_cluster_reproduces_the_local_executors_scored_outputs(
    cluster: str, project: dict[str, Any], tmp_path: Path
) -> None:
    """The command itself, in its own process, joining the cluster by address."""
    run_dir = tmp_path / "ray"
    scope = [f"--{name}={value}" for name, value in SUBSET.items()]
    command = [str(Path(sys.executable).with_name("sr")), "--project-dir", str(project["paths"].root), "run"]
    options = ["--executor", "ray", "--ray-address", cluster, "--workers", "2", "--no-plots"]
    done = subprocess.run(
        [*command, *options, "--run-dir", str(run_dir), *scope], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 workers, executor ray" in done.stdout
    assert scored_bytes(run_dir) == project["local"]
    session = read_manifest(run_dir).sessions[-1]
    assert (session.executor, session.workers, session.committed) == ("ray", 2, SUBSET_EPISODES)
    assert events(run_dir) == []
    assert _wait_no_workers() == []  # the actors end with the run
    status = CliRunner().invoke(app, ["status", str(run_dir)])
    assert status.exit_code == 0 and "executor ray" in status.output


def test_a_worker_killed_mid_run_has_its_episodes_retried(
    cluster: str, project: dict[str, Any], tmp_path: Path
) -> None:
    run_dir = tmp_path / "ray-killed-worker"
    killed: list[int] = []

    def kill_a_worker() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            pids = worker_pids()
            if committed_count(run_dir) >= 8 and pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
                return
            time.sleep(0.01)

    killer = threading.Thread(target=kill_a_worker, daemon=True)
    killer.start()
    outcome = run(
        project["paths"],
        compiled=project["compiled"],
        executor="ray",
        workers=2,
        plots=False,
        run_dir=run_dir,
        engine=SlowEngine(sleep_s=0.03, load_log=str(tmp_path / "loads.log")),
        **SUBSET,
    )
    killer.join()
    loads = (tmp_path / "loads.log").read_text().split("\n")[:-1]
    assert len(loads) == len(set(loads))  # each worker loads the engine once per catalog, one catalog each
    assert {line.split()[1] for line in loads} == {"100", "250"}
    assert killed, "the run finished before a worker could be killed"
    assert outcome.exit_code == 0  # terminal in the same session: the lost episodes ran again
    lost = [e for e in events(run_dir) if e["kind"] == "worker_lost"]
    assert lost and all(e["resolved_at"] is not None for e in lost)  # events, each resolved by its commit
    assert len(events(run_dir)) == len(lost)
    with sqlite3.connect(run_dir / "episodes.sqlite") as connection:
        assert connection.execute("SELECT COUNT(*) FROM episodes").fetchone() == (SUBSET_EPISODES,)
    session = read_manifest(run_dir).sessions[-1]
    assert session.committed == SUBSET_EPISODES and session.infrastructure_events == len(lost)
    assert scored_bytes(run_dir) == project["local"]
    assert _wait_no_workers() == []


DRIVER = """
import sys
from pathlib import Path
sys.path.insert(0, {tests!r})
import ray
from ray_support import SUBSET, SlowEngine, register_by_value, run
from schemarouter.project import ProjectPaths
register_by_value(ray)
run(ProjectPaths.at(Path({root!r})), executor="ray", ray_address={address!r}, engine=SlowEngine(sleep_s=0.05),
    workers=2, plots=False, run_dir=Path({run_dir!r}), **SUBSET)
"""


@pytest.mark.parametrize("resume_with", ["ray", "local"])
def test_a_driver_killed_mid_run_resumes_on_either_executor(
    cluster: str, project: dict[str, Any], tmp_path: Path, resume_with: str
) -> None:
    paths: ProjectPaths = project["paths"]
    run_dir = tmp_path / "ray-killed-driver"
    script = tmp_path / "driver.py"
    script.write_text(
        DRIVER.format(tests=str(TESTS), root=str(paths.root), address=cluster, run_dir=str(run_dir))
    )
    proc = subprocess.Popen([sys.executable, str(script)], cwd=TESTS.parent, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 90
    while committed_count(run_dir) < 10 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, f"the driver ended before it could be killed: {proc.stderr.read()!r}"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert _wait_no_workers() == []  # Ray ends the actors of a dead driver
    killed_at = committed_count(run_dir)
    assert 10 <= killed_at < SUBSET_EPISODES
    assert read_manifest(run_dir).sessions[-1].finished_at is None

    outcome = run(
        paths,
        compiled=project["compiled"],
        resume=True,
        run_dir=run_dir,
        executor=resume_with,
        workers=2 if resume_with == "ray" else 1,
        plots=False,
    )
    assert outcome.exit_code == 0
    second = read_manifest(run_dir).sessions[-1]
    assert (second.number, second.executor) == (2, resume_with)
    assert second.committed == SUBSET_EPISODES - killed_at  # exactly the episodes not committed
    assert scored_bytes(run_dir) == project["local"]


class _Model(BaseHTTPRequestHandler):
    """A deterministic OpenAI-compatible server on loopback, counting the calls it answers."""

    calls: ClassVar[list[str]] = []
    lock = threading.Lock()
    disable_nagle_algorithm = True  # headers and body are two writes (tests/llm_loopback.py)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with type(self).lock:
            type(self).calls.append(body.decode())
        send_json(self, 200, model_reply(json.loads(body)))

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def model_server() -> Iterator[str]:
    _Model.calls = []
    with serving(_Model) as base_url:
        yield base_url


def test_the_model_call_cache_is_shared_by_every_worker(
    cluster: str, project: dict[str, Any], model_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers on the driver's node open the cache file themselves; workers elsewhere go through the
    owner actor. The first run takes the owner's path (its node named as another), the replay the
    file's: what one wrote, the other reads."""
    from runtime.run.executors import ray_cluster

    cache = tmp_path / "model-calls.sqlite"
    scope = {"tasks": "S1,S3,en", "conditions": "C5", "catalogs": "100"}  # 12 episodes

    def model_run(name: str, executor: str, workers: int, **options: Any) -> Path:
        agent_options = {"base_url": model_server, "model": "loopback", "cache_path": str(cache), **options}
        outcome = run(
            project["paths"],
            compiled=project["compiled"],
            agent="openai",
            agent_options=agent_options,
            executor=executor,
            workers=workers,
            plots=False,
            run_dir=tmp_path / name,
            **scope,
        )
        assert outcome.exit_code == 0
        return outcome.run_dir

    # Four actors with half a CPU each, all writing through the one owner (as if on other nodes).
    asked: list[str] = []
    with monkeypatch.context() as elsewhere:
        elsewhere.setattr(ray_cluster, "owners_node", lambda ray: asked.append("node") or "another node")
        first = model_run("first", "ray", 4)
    assert asked == ["node"]  # the driver named the owners' node once (tests/test_ray_cache_opener.py)
    server_calls = len(_Model.calls)
    assert server_calls >= 12
    with sqlite3.connect(cache) as connection:
        stored = connection.execute("SELECT COUNT(*) FROM model_calls").fetchone()[0]
    assert stored == len(set(_Model.calls))  # every distinct request the workers made, stored once
    session = read_manifest(first).sessions[-1]
    assert (session.executor, session.workers) == ("ray", 4)
    assert session.model_calls is not None and session.model_calls["server_calls"] == server_calls

    replay = model_run("replay", "ray", 2)  # on the owner's node: the file itself, all hits
    assert len(_Model.calls) == server_calls
    replayed = read_manifest(replay).sessions[-1].model_calls
    assert (
        replayed is not None and replayed["cache_hits"] == replayed["calls"] and replayed["server_calls"] == 0
    )
    assert scored_bytes(replay) == scored_bytes(first)

    fresh = model_run("fresh-local", "local", 1, no_cache=True)  # the server again, the local executor
    assert len(_Model.calls) == 2 * server_calls
    assert scored_bytes(fresh) == scored_bytes(first)


def test_a_model_server_that_cannot_be_reached_stops_the_ray_session(
    cluster: str, project: dict[str, Any], tmp_path: Path
) -> None:
    """As on the local executor: the first episode that cannot connect stops scheduling; only the
    batches already in flight (two per actor) record an event, and nothing is committed."""
    scope = {"tasks": "S1,S3,en", "conditions": "C5", "catalogs": "100"}  # 12 episodes
    agent_options = {"base_url": "http://127.0.0.1:9/v1", "model": "loopback", "retries": 0, "no_cache": True}
    outcome = run(
        project["paths"], compiled=project["compiled"], agent="openai", agent_options=agent_options,
        executor="ray", workers=2, plots=False, run_dir=tmp_path / "down", **scope,
    )  # fmt: skip
    assert outcome.exit_code != 0
    recorded = events(outcome.run_dir)
    assert 1 <= len(recorded) <= 4 and {e["kind"] for e in recorded} == {"episode_exception"}, recorded
    session = read_manifest(outcome.run_dir).sessions[-1]
    assert session.committed == 0 and session.infrastructure_events == len(recorded)


class _Gathering(BaseHTTPRequestHandler):
    """The deterministic model, holding its first answers until ``want`` requests are in flight at once
    (so a run that can reach ``want`` does, whichever actor loads first), counting the peak."""

    want = 5
    state: ClassVar[dict[str, int]] = {}
    cond = threading.Condition()
    disable_nagle_algorithm = True

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        state, cond = type(self).state, type(self).cond
        with cond:
            state["in_flight"] += 1
            state["peak"] = max(state["peak"], state["in_flight"])
            if state["in_flight"] >= self.want:
                state["gathered"] = 1
            cond.notify_all()
            cond.wait_for(lambda: state["gathered"] == 1, timeout=20)
        time.sleep(0.05)
        with cond:
            state["in_flight"] -= 1
        send_json(self, 200, model_reply(json.loads(body)))

    def log_message(self, *args: Any) -> None:
        pass


def test_concurrency_n_on_ray_is_n_requests_on_threaded_actors_not_n_actors(
    cluster: str, project: dict[str, Any], tmp_path: Path
) -> None:
    """--concurrency 5 --workers 2: two actors with 3 + 2 request slots, never a sixth request, and the
    scored outputs of one request at a time on the local executor."""
    _Gathering.state = {"in_flight": 0, "peak": 0, "gathered": 0}
    scope = {"tasks": "S1,S3,en", "conditions": "C3,C5", "catalogs": "100"}  # 24 episodes
    with serving(_Gathering) as base_url:
        options = {"base_url": base_url, "model": "loopback", "no_cache": True, "retries": 0}

        def model_run(name: str, **how: Any) -> Path:
            outcome = run(
                project["paths"], compiled=project["compiled"], agent="openai", agent_options=options,
                plots=False, run_dir=tmp_path / name, **how, **scope,
            )  # fmt: skip
            assert outcome.exit_code == 0
            return outcome.run_dir

        on_ray = model_run("ray-n5", executor="ray", workers=2, concurrency=5)
        peak = _Gathering.state["peak"]
        counted = traffic.snapshot()  # what the progress display read: the actors' counters too
        one_at_a_time = model_run("local-n1", executor="local", workers=1)
    assert peak == 5  # every slot used, and never one more
    assert (counted.answered, counted.in_flight, counted.errors) == (48, 0, 0)  # two turns an episode
    session = read_manifest(on_ray).sessions[-1]
    assert (session.executor, session.workers, session.committed) == ("ray", 2, 24)
    assert scored_bytes(on_ray) == scored_bytes(one_at_a_time)
    assert _wait_no_workers() == []
