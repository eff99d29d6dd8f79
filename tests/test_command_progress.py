"""Progress of the long commands: library functions report steps through a callback and print nothing;
the CLI's renderer draws a bar on a terminal and plain lines at a steady interval elsewhere."""

from __future__ import annotations

import io
import threading
import time

import pytest
from rich.console import Console
from run_support import REPO

from runtime.core.progress import Step, announce, counted
from runtime.report.command_progress import CommandProgress, step_text
from schemarouter.project import ProjectPaths


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_counted_reports_every_item_and_announce_nothing_without_a_callback() -> None:
    steps: list[Step] = []
    assert list(counted(steps.append, "tasks", ["a", "b", "c"], unit="tasks")) == ["a", "b", "c"]
    assert [(s.done, s.total) for s in steps] == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert steps[-1].finished and not steps[0].finished
    announce(None, "nothing", 1)  # no callback: no error, no output
    assert list(counted(None, "x", [1, 2])) == [1, 2]


def test_step_text() -> None:
    assert step_text(Step("inspect logs", 9, 15, "logs")) == "inspect logs 9/15 logs"
    assert step_text(Step("reading traces", 120, None, "episodes")) == "reading traces 120 episodes"
    assert step_text(Step("validating the specs", 0)) == "validating the specs"


def test_compile_reports_its_stages_through_the_callback_and_prints_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from compiler.compile import compile_project

    steps: list[Step] = []
    paths = ProjectPaths.at(REPO).with_experiment("0.16")
    compile_project(paths, write_manifest=False, progress=steps.append)
    assert [s.stage for s in steps] == [
        "validating the specs",
        "verifying the freeze",
        "building the compiled spec",
    ]
    assert capsys.readouterr() == ("", "")


def _plain(clock: FakeClock, interval_s: float = 3600.0) -> tuple[CommandProgress, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=200)
    return CommandProgress("sr test", console=console, interval_s=interval_s, clock=clock), out


def test_plain_lines_name_the_latest_step_and_end_with_the_total_time() -> None:
    clock = FakeClock()
    progress, out = _plain(clock)
    with progress:
        for done in range(1, 4):
            clock.now += 4
            progress(Step("assembling tasks", done, 10, "tasks"))
        assert progress.line() == "sr test: assembling tasks 3/10 tasks, 12 s"
        assert out.getvalue() == ""  # no line per step: only the heartbeat prints, every interval
    assert out.getvalue() == "sr test: done in 12 s\n"
    assert "\x1b" not in out.getvalue()


def test_a_short_or_failed_command_prints_no_last_line() -> None:
    clock = FakeClock()
    progress, out = _plain(clock)
    with progress:
        clock.now += 1.5  # under quiet_s
    assert out.getvalue() == ""
    progress, out = _plain(clock)
    with pytest.raises(RuntimeError), progress:
        clock.now += 60
        raise RuntimeError("the command's own error")
    assert out.getvalue() == ""


def test_the_heartbeat_prints_while_a_step_takes_long() -> None:
    clock = FakeClock()
    progress, out = _plain(clock, interval_s=0.01)
    with progress:
        clock.now += 25
        progress(Step("inspect logs", 13, 15, "logs"))
        for _ in range(3000):  # readiness, not speed: the heartbeat thread gets scheduled eventually
            if "13/15" in out.getvalue():
                break
            time.sleep(0.01)
    lines = out.getvalue().splitlines()
    assert "sr test: inspect logs 13/15 logs, 25 s" in lines
    assert lines[-1] == "sr test: done in 25 s"
    assert not [t for t in threading.enumerate() if t.name == "sr-progress"]  # stopped with the command


def test_a_terminal_gets_a_bar_and_no_thread() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)
    before = {t.name for t in threading.enumerate()}
    with CommandProgress("sr test", console=console) as progress:
        progress(Step("assembling tasks", 5, 10, "tasks"))
        assert {t.name for t in threading.enumerate()} == before
    text = out.getvalue()
    assert "sr test" in text and "assembling tasks" in text and "5/10" in text


def _generate_check(monkeypatch: pytest.MonkeyPatch, setting: str) -> str:
    from typer.testing import CliRunner

    from schemarouter.cli.app import app

    monkeypatch.setenv("SR_PROGRESS", setting)
    args = ["--project-dir", str(REPO), "generate", "--check", "--experiment", "0.16"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output


def test_sr_generate_in_a_log_prints_plain_progress_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    output = _generate_check(monkeypatch, "0.05")  # the interval, shortened: the command takes seconds
    progress = [line for line in output.splitlines() if line.startswith("sr generate: ")]
    print("\n".join(progress[-3:]))
    beats = [line for line in progress if not line.startswith("sr generate: done in ")]
    assert beats and all(", " in line and line.endswith(" s") for line in beats)
    assert any("assembling tasks" in line and "/180 tasks" in line for line in beats)
    assert output.splitlines()[-1] == "catalogs/ is byte-identical to a fresh generation."


def test_sr_progress_off_prints_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _generate_check(monkeypatch, "off") == "catalogs/ is byte-identical to a fresh generation.\n"


def test_the_library_reports_retrieval_eval_progress_and_prints_nothing(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    import schemarouter as sr

    fixtures = REPO / "tests" / "fixtures" / "import"
    catalog = tmp_path / "acme.json"
    sr.catalog.import_(fixtures / "acme_commerce.openapi.yaml", "openapi", out=catalog, project=REPO)
    steps: list[Step] = []
    queries = fixtures / "acme_commerce.queries.jsonl"
    report = sr.retrieval.evaluate(catalog, queries, project=REPO, resamples=200, progress=steps.append)
    assert capsys.readouterr() == ("", "")
    for result in report.results:
        stage = f"{result.strategy}: queries" + (" with a state" if result.use == "query+state" else "")
        done = [(s.done, s.total) for s in steps if s.stage == stage]
        assert done[0] == (0, result.queries) and done[-1] == (result.queries, result.queries)


def test_sr_run_reports_its_compile_before_any_episode(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """A run that must compile first (a draft can take minutes) says so, in a log as plain lines."""
    from run_support import copy_project
    from typer.testing import CliRunner

    from schemarouter.cli.app import app

    project = copy_project(tmp_path)
    monkeypatch.setenv("SR_PROGRESS", "0.05")
    args = ["--project-dir", str(project.root), "run", "--catalogs", "100", "--conditions", "SR-5-STATIC"]
    result = CliRunner().invoke(
        app, [*args, "--tasks", "S1", "--draft", "--run-dir", str(tmp_path / "r"), "--no-plots"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    compile_lines = [i for i, line in enumerate(lines) if line.startswith("sr run: compile")]
    episodes = next(i for i, line in enumerate(lines) if line.startswith("episodes "))
    assert compile_lines and max(compile_lines) < episodes, result.output
