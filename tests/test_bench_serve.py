"""`sr bench serve`: the loopback server it starts (a real uvicorn process), what it measures, and one
tiny run of the command itself. Timings are printed, never asserted."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from run_support import REPO
from typer.testing import CliRunner

from runtime.core.errors import SchemaRouterError
from runtime.run.rundir import fresh_directory
from schemarouter.application.bench_occupancy import occupancy_bound, occupancy_parts
from schemarouter.application.bench_serve import ServeBench, Server, shard_for
from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # starts server processes and two short runs


def test_the_server_answers_after_its_latency_and_counts_requests_in_flight() -> None:
    with Server(ServeBench(latency_s=0.05)) as server:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        answer = httpx.post(server.base_url + "/chat/completions", json=body, timeout=10).json()
        assert answer["choices"][0]["message"]["content"] == "done"
        constrained = httpx.post(
            server.base_url + "/chat/completions", json={**body, "response_format": {}}, timeout=10
        ).json()
        assert constrained["choices"][0]["message"]["content"] == '{"action":"final_answer","arguments":{}}'
        stats = server.stats()
        assert stats["requests"] == 2 and stats["peak_in_flight"] == 1
        assert 0.0 < stats["mean_in_flight"] <= 1.0  # one at a time: never more than one in flight
        timeline = server.timeline()
        assert [k for _, k in timeline["events"]] == [1, 0, 1, 0] and not timeline["truncated"]
        assert timeline["events"][0][0] == 0.0 and timeline["events"][-1][0] == pytest.approx(
            stats["window_s"]
        )
        parts = occupancy_parts(timeline["events"], 1)
        assert parts is not None and parts.occupancy == pytest.approx(stats["mean_in_flight"])
        assert server.stats(reset=True)["requests"] == 0


def test_an_error_rate_answers_503_with_retry_after() -> None:
    with Server(ServeBench(latency_s=0.0, error_rate=0.5)) as server:
        codes = [
            httpx.post(server.base_url + "/chat/completions", json={"messages": []}, timeout=10)
            for _ in range(40)
        ]
    failed = [r for r in codes if r.status_code == 503]
    assert 5 < len(failed) < 35 and all(r.headers["retry-after"] == "0" for r in failed)


def test_each_n_runs_the_fewest_shards_that_fit_its_budget() -> None:
    assert shard_for(2700, 5120) == ("1/1", 2700)
    assert shard_for(2700, 20) == ("1/135", 20)
    assert shard_for(2700, 320) == ("1/9", 300)


def test_bad_options_are_one_line() -> None:
    with pytest.raises(SchemaRouterError, match="--error-rate"):
        ServeBench(error_rate=1.0).check()
    with pytest.raises(SchemaRouterError, match="--concurrency"):
        ServeBench(concurrencies=(0,)).check()
    with pytest.raises(SchemaRouterError, match=r"^--executor 'slurm': unknown executor; known: local, ray$"):
        ServeBench(executor="slurm").check()


@pytest.mark.parametrize("executor", ["local", "ray"])
def test_the_model_runs_go_to_the_chosen_executor_and_the_reference_run_stays_local(
    executor: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from schemarouter.application import bench_serve
    from schemarouter.project import ProjectPaths

    commands: list[list[str]] = []

    def timed(command: list[str], log: Path) -> tuple[float, int]:
        commands.append(list(command))
        return 1.0, 1

    class _Server:
        base_url = "http://127.0.0.1:9/v1"

        def stats(self, reset: bool = False) -> dict[str, float]:
            return {}

    monkeypatch.setattr(bench_serve, "timed", timed)
    bench = ServeBench(executor=executor)
    project = ProjectPaths.at(REPO)
    common = ("--surface", "dev", "--no-plots")
    bench_serve._model_run(project, bench, _Server(), tmp_path, 4, common)  # type: ignore[arg-type]
    bench_serve._reference_run(project, bench, tmp_path, 4, common)
    model, reference = commands
    assert model[model.index("--executor") + 1] == executor
    assert "--executor" not in reference


def test_sr_bench_serve_prints_a_row_per_n(tmp_path: Path) -> None:
    """On the repository itself (its development surface; a pilot records nothing in any lock)."""
    runner = CliRunner()
    refused = runner.invoke(app, ["--project-dir", str(REPO), "bench", "serve", "--out", "spec/x"])
    assert refused.exit_code == 1 and "--out" in refused.output and "Traceback" not in refused.output
    args = ["--concurrency", "2", "--latency", "0.01", "--per-slot", "2", "--no-inspect"]
    out = ["--out", str(tmp_path / "bench")]
    result = runner.invoke(app, ["--project-dir", str(REPO), "bench", "serve", *args, *out])
    assert result.exit_code == 0, result.output
    assert "N=2    episodes     4" in result.output and "occupancy" in result.output
    assert "(at most 1.000; peak" in result.output  # 4 episodes at N = 2: two full rounds
    assert "lost: start " in result.output and "after the last request" in result.output
    [first] = (tmp_path / "bench").iterdir()
    assert f"runs and logs: {first}" in result.output
    assert json.loads((first / "n2-occupancy.json").read_text())["events"][0][1] == 1
    assert (first / "n2" / "episodes.sqlite").is_file()
    # A second bench into the same --out runs again in its own directory; the first one's stays.
    before = {p: p.stat().st_mtime_ns for p in first.rglob("*")}
    again = runner.invoke(app, ["--project-dir", str(REPO), "bench", "serve", *args, *out])
    assert again.exit_code == 0, again.output
    assert len(list((tmp_path / "bench").iterdir())) == 2
    assert {p: p.stat().st_mtime_ns for p in first.rglob("*")} == before


def test_every_bench_gets_a_fresh_directory(tmp_path: Path) -> None:
    made = [fresh_directory(tmp_path / "out") for _ in range(3)]
    assert len(set(made)) == 3 and all(p.is_dir() and p.parent == tmp_path / "out" for p in made)
    assert all(re.fullmatch(r"\d{8}T\d{6}Z(-\d+)?", p.name) for p in made)
    runs = [fresh_directory(tmp_path / "runs", "reference-abc") for _ in range(3)]  # sr run's names
    assert len(set(runs)) == 3
    assert all(re.fullmatch(r"\d{8}T\d{6}Z-reference-abc(-\d+)?", p.name) for p in runs)


def test_the_servers_connections_send_without_nagle() -> None:
    """asyncio sets TCP_NODELAY only on sockets whose proto says TCP; the accepted ones inherit the
    listening socket's (a proto of 0 cost 44 ms per answer: its body waited for a delayed ACK)."""
    import asyncio
    import socket

    from schemarouter.application.bench_server import listening_socket

    async def accepted_nodelay() -> int:
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                sock = transport.get_extra_info("socket")
                seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

        sock = listening_socket(0)
        server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
        _, writer = await asyncio.open_connection(*sock.getsockname())
        try:
            return await asyncio.wait_for(seen, 10)
        finally:
            writer.close()
            server.close()

    assert asyncio.run(accepted_nodelay()) != 0


def test_a_client_that_connects_before_uvicorn_starts_waits_in_the_backlog() -> None:
    """The port is announced before uvicorn runs; a bound socket that did not listen yet refused such a
    client (test_an_error_rate_answers_503_with_retry_after failed so once under load)."""
    import socket

    from schemarouter.application.bench_server import listening_socket

    sock = listening_socket(0)
    try:
        with socket.create_connection(sock.getsockname(), timeout=5):
            pass  # accepted into the backlog: no server has run yet
    finally:
        sock.close()


def test_the_rss_sampler_walks_the_tree_seldom_and_finds_later_children(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import subprocess
    import sys
    import time

    import psutil

    from schemarouter.application import bench_serve

    walks: list[int] = []
    original = psutil.Process.children

    def counted(self: psutil.Process, recursive: bool = False) -> list[psutil.Process]:
        walks.append(1)
        return original(self, recursive=recursive)

    monkeypatch.setattr(psutil.Process, "children", counted)
    monkeypatch.setattr(bench_serve, "TREE_S", 60.0)  # no walk falls due by itself during the test
    tree = bench_serve._TreeRss(psutil.Process())
    alone = tree.sample()
    assert alone > 0 and len(walks) == 1
    for _ in range(5):
        tree.sample()
    assert len(walks) == 1  # within TREE_S: only the known processes' memory is read
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(0.5)  # started after the walk, and the interpreter has loaded
        tree.sample()
        assert len(walks) == 1 and child.pid not in {p.pid for p in tree.known}  # found at the next walk
        tree.found_at -= 61.0  # TREE_S has passed since the walk
        assert tree.sample() > alone and len(walks) == 2
        assert child.pid in {p.pid for p in tree.known}
    finally:
        child.kill()
        child.wait()
    assert tree.sample() >= 0  # a process that exited is skipped, never an error


def test_the_occupancy_bound_is_the_tail_of_a_finite_run() -> None:
    assert occupancy_bound(2700, 256) == pytest.approx(2700 / (11 * 256))  # 0.959
    assert occupancy_bound(2560, 256) == 1.0  # ten full rounds
    assert occupancy_bound(20, 1) == 1.0
    assert occupancy_bound(300, 16) == pytest.approx(300 / (19 * 16))
    assert occupancy_bound(3, 256) == pytest.approx(3 / 256)  # fewer episodes than slots
    assert occupancy_bound(0, 4) == 0.0


def test_the_lost_occupancy_splits_into_start_between_and_tail() -> None:
    # N = 2: arrivals at 0 and 0.5, an answer and the next arrival at 1.0, answers at 1.5 and 2.0.
    events = [(0.0, 1), (0.5, 2), (1.0, 1), (1.0, 2), (1.5, 1), (2.0, 0)]
    parts = occupancy_parts(events, 2)
    assert parts is not None
    assert parts.occupancy == pytest.approx(0.75)  # (0.5 + 1 + 1 + 0.5) / 2.0 s / N
    assert (parts.start_loss, parts.start_s) == (pytest.approx(0.125), 0.5)
    assert (parts.tail_loss, parts.tail_s) == (pytest.approx(0.125), 1.0)
    assert parts.between_loss == pytest.approx(0.0)
    # A gap between: one slot idle for 0.25 s before its next request.
    gap = [(0.0, 1), (0.0, 2), (1.0, 1), (1.25, 2), (2.0, 1), (2.25, 0)]
    split = occupancy_parts(gap, 2)
    assert split is not None and split.start_loss == 0.0
    assert split.between_loss == pytest.approx(0.25 / (2 * 2.25))
    assert split.tail_loss == pytest.approx(0.25 / (2 * 2.25))  # one answer 0.25 s after the other
    assert split.occupancy == pytest.approx(1 - 0.5 / 4.5)
    # N never reached: all of it is the start and the tail.
    few = occupancy_parts([(0.0, 1), (1.0, 0)], 4)
    assert few is not None and few.between_loss == 0.0 and few.occupancy == pytest.approx(0.25)
    assert occupancy_parts([], 2) is None and occupancy_parts([(0.0, 1), (1.0, 0)], 0) is None
