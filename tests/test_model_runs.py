"""`sr run --agent openai` and `sr episode --agent openai` end to end against a loopback server.

The server answers at once (a final answer), so each episode is one model call: the test is about
what reaches the server, what the cache keeps, and how repeated trials are scored.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from llm_loopback import Loopback, final_answer, loopback
from run_support import frozen_project
from typer.testing import CliRunner

from runtime.catalog.io import load_catalog
from runtime.run.store import EpisodeStore
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

TASKS = "S1-en-01,S2-ko-01"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> ProjectPaths:
    return frozen_project(tmp_path_factory.mktemp("model-runs"))


def sr(paths: ProjectPaths, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--project-dir", str(paths.root), *args], env={"COLUMNS": "200"})
    return result.exit_code, result.output


def run(paths: ProjectPaths, server: Loopback, run_dir: Path, *extra: str) -> tuple[int, str]:
    return sr(
        paths,
        "run",
        "--agent",
        "openai",
        "--conditions",
        "SR-5-STATIC",
        "--catalogs",
        "100",
        "--tasks",
        TASKS,
        "--workers",
        "1",
        "--no-plots",
        "--base-url",
        server.base_url,
        "--model",
        "tiny",
        "--run-dir",
        str(run_dir),
        *extra,
    )


def traces(run_dir: Path) -> list[dict]:
    with EpisodeStore(run_dir, readonly=True) as store:
        return [json.loads(store.read_trace(k) or "{}") for k in sorted(store.committed_keys())]


@pytest.mark.parametrize("mode", ["--native-tools", "--constrained-decoding"])
def test_every_exposed_tool_reaches_the_server(project: ProjectPaths, tmp_path: Path, mode: str) -> None:
    with loopback(Loopback(answer=final_answer)) as server:
        code, out = run(project, server, tmp_path / "run", mode, "--no-cache")
    assert code == 0, out
    by_route = load_catalog(project.catalogs_dir, 100).by_route()
    sent = server.requests
    shown = [t["exposures"][t["turns"][0]["exposure"]] for t in traces(tmp_path / "run")]
    assert len(sent) == len(shown) == 2
    # One worker runs the episodes in canonical order, which is the order of the sorted keys.
    for request, route_ids in zip(sent, shown, strict=True):
        names = [by_route[r].name for r in route_ids]
        if mode == "--native-tools":
            assert [t["function"]["name"] for t in request["tools"]] == names
        else:
            assert "tools" not in request
            system = request["messages"][0]["content"]
            for route in route_ids:  # the very text the engine counted for each exposed schema
                schema = by_route[route].tool_schema()
                assert json.dumps(schema, ensure_ascii=False, sort_keys=True, separators=(",", ":")) in system


def test_a_second_server_misses_the_first_servers_cache(project: ProjectPaths, tmp_path: Path) -> None:
    cache = tmp_path / "calls.sqlite"
    with loopback(Loopback(answer=final_answer)) as first, loopback(Loopback(answer=final_answer)) as second:
        assert run(project, first, tmp_path / "a", "--model-cache", str(cache))[0] == 0
        assert run(project, first, tmp_path / "b", "--model-cache", str(cache))[0] == 0
        assert len(first.raw) == 2  # the rerun on the same server replayed from the cache
        assert run(project, second, tmp_path / "c", "--model-cache", str(cache))[0] == 0
        assert len(second.raw) == 2  # same model name, another base URL: nothing replayed
    code, out = sr(project, "cache", "stats", "--cache", str(cache))
    assert code == 0 and out.count("model tiny  epoch 1: 2 entries") == 2


def test_no_cache_leaves_no_cache_file(project: ProjectPaths, tmp_path: Path) -> None:
    cache = tmp_path / "calls.sqlite"
    with loopback(Loopback(answer=final_answer)) as server:
        assert run(project, server, tmp_path / "run", "--model-cache", str(cache), "--no-cache")[0] == 0
        assert len(server.raw) == 2
    assert not cache.exists() and not list(tmp_path.glob("*.sqlite*"))
    assert not (project.runs_dir / "model-calls.sqlite").exists()


def test_two_epochs_give_two_trials_per_task_and_a_pass_k_line(project: ProjectPaths, tmp_path: Path) -> None:
    with loopback(Loopback(answer=final_answer)) as server:
        code, out = run(project, server, tmp_path / "run", "--epochs", "2", "--no-cache")
    assert code == 0, out
    rows = [json.loads(line) for line in (tmp_path / "run" / "per_task.jsonl").read_text().splitlines()]
    assert [(r["task_id"], r["epoch"]) for r in rows] == [
        ("S1-en-01", 1),
        ("S1-en-01", 2),
        ("S2-ko-01", 1),
        ("S2-ko-01", 2),
    ]
    seeds = sorted(r["seed"] for r in server.requests)
    assert len(set(seeds)) == 2  # each epoch samples with its own seed
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["epochs"]["epochs"] == 2 and report["scope"]["episodes"] == 4
    assert set(report["epochs"]["pass_hat_k"]["SR-5-STATIC"]["100"]) == {"1", "2"}
    assert "SR-5-STATIC catalog 100: pass^1 0, pass^2 0; task_pass 0, task-cluster bootstrap" in out
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["scope"]["epochs"] == 2 and manifest["episodes"] == 4
    assert [t.get("epoch") for t in traces(tmp_path / "run")] == [None, 2, None, 2]


def test_one_epoch_outputs_carry_no_epoch(project: ProjectPaths, tmp_path: Path) -> None:
    with loopback(Loopback(answer=final_answer)) as server:
        assert run(project, server, tmp_path / "run", "--no-cache")[0] == 0
    run_dir = tmp_path / "run"
    assert "epoch" not in (run_dir / "per_task.jsonl").read_text()
    assert "epoch" not in (run_dir / "report.json").read_text()
    assert "epochs" not in json.loads((run_dir / "manifest.json").read_text())["scope"]
    assert all("epoch" not in t for t in traces(run_dir))


def test_sr_episode_takes_the_server_flags_and_a_missing_server_is_one_line(
    project: ProjectPaths, tmp_path: Path
) -> None:
    with loopback(Loopback(answer=final_answer)) as server:
        code, out = sr(
            project,
            "episode",
            "S1-en-01",
            "--agent",
            "openai",
            "--base-url",
            server.base_url,
            "--model",
            "tiny",
            "--constrained-decoding",
            "--max-tokens",
            "32",
            "--no-cache",
        )
        assert code == 0, out
        assert server.requests[0]["max_tokens"] == 32 and server.requests[0]["model"] == "tiny"
    sr_bin = Path(sys.executable).parent / "sr"
    done = subprocess.run(
        [
            *(str(sr_bin), "--project-dir", str(project.root), "episode", "S1-en-01", "--agent", "openai"),
            *("--base-url", "http://127.0.0.1:9/v1", "--no-cache", "--retries", "2", "--backoff", "0"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot connect" in lines[0] and "127.0.0.1:9" in lines[0], done.stderr
    assert "Traceback" not in done.stderr


def test_retries_and_backoff_flags_set_the_attempts_against_a_failing_server(project: ProjectPaths) -> None:
    """--retries N makes N + 1 attempts of a call that keeps failing, then one clear line."""
    with loopback(Loopback()) as server:  # no script and no answer: every call is an HTTP 500
        code, out = sr(
            project, "episode", "S1-en-01", "--agent", "openai", "--base-url", server.base_url,
            "--no-cache", "--retries", "1", "--backoff", "0",
        )  # fmt: skip
        assert code == 1 and "failed: HTTP 500" in out, out
        assert len(server.raw) == 2  # agent.yaml's 3 retries would make 4 attempts


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_server_that_cannot_be_reached_stops_the_run_and_resume_finishes_it(
    project: ProjectPaths, tmp_path: Path, workers: str
) -> None:
    """No episode can run without the server, so the first one that cannot connect stops the session
    (not one event per episode up to --max-events); the episodes not run have no event, and --resume
    with the server up runs them all and resolves the events."""
    run_dir = tmp_path / "run"
    tasks = "S1-en-01,S1-en-02,S2-ko-01,S2-ko-02,S3-en-01,S3-ko-01"
    scope = ["--conditions", "SR-5-STATIC", "--catalogs", "100", "--tasks", tasks, "--no-plots"]
    code, out = sr(
        project, "run", "--agent", "openai", "--model", "tiny", *scope, "--workers", workers,
        "--base-url", "http://127.0.0.1:9/v1", "--retries", "0", "--no-cache", "--run-dir", str(run_dir),
    )  # fmt: skip
    assert code != 0, out
    assert (
        "stopped early: the model server at http://127.0.0.1:9/v1/chat/completions cannot be reached" in out
    )
    with EpisodeStore(run_dir, readonly=True) as store:
        events, committed = store.events(unresolved_only=True), store.committed_keys()
    assert committed == set()
    # One episode inline; at most the batches in flight (two per worker) in the pool, of six.
    assert 1 <= len(events) <= (1 if workers == "1" else 4), events
    with loopback(Loopback(answer=final_answer)) as server:
        code, out = sr(
            project, "run", "--model", "tiny", "--workers", workers, "--no-plots",
            "--base-url", server.base_url, "--no-cache", "--run-dir", str(run_dir), "--resume",
        )  # fmt: skip
    assert code == 0, out
    with EpisodeStore(run_dir, readonly=True) as store:
        assert len(store.committed_keys()) == 6 and store.events(unresolved_only=True) == []


def test_a_template_that_hides_parts_is_a_warning_in_manifest_report_and_console(
    project: ProjectPaths, tmp_path: Path
) -> None:
    with loopback(Loopback(answer=final_answer)) as server:
        code, out = run(
            project,
            server,
            tmp_path / "run",
            "--native-tools",
            "--server-template",
            "chatml-function-calling",
        )
        assert code == 0, out
        # That template drops role: tool, so results would travel as user text (none here: one turn each).
        assert all(m["role"] != "tool" for r in server.requests for m in r["messages"])
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    warnings = manifest["agent"]["warnings"]
    assert manifest["agent"]["options"]["server_template"] == "chatml-function-calling"
    assert any("descriptions are not rendered" in w for w in warnings)
    assert json.loads((tmp_path / "run" / "report.json").read_text())["agent_warnings"] == warnings
    assert "warning: server template chatml-function-calling: tool descriptions" in out
    assert "> server template chatml-function-calling" not in out
    assert "warning: server template" in (tmp_path / "run" / "report.md").read_text()


def test_llm_smoke_help_shows_the_extra() -> None:
    result = CliRunner().invoke(app, ["llm-smoke", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "pip install -e '.[llm]'" in result.output
