"""`sr bench scale` and `sr bench anchor` run and print their rows on tiny inputs. No timing is asserted."""

from __future__ import annotations

from pathlib import Path

import pytest
from extras import require_module
from typer.testing import CliRunner

from runtime.engine import anchor
from runtime.engine.anchor import AnchorCost
from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[1]


def _sr(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--project-dir", str(ROOT), "bench", *args])
    return result.exit_code, result.output


def test_scale_prints_every_condition_at_every_size() -> None:
    code, out = _sr("scale", "--sizes", "100,500,700", "--tasks", "2", "--conditions", "SR-5-STATIC,FULL")
    assert code == 0, out
    rows = [line for line in out.splitlines() if line.startswith("│")]
    cells = {(r.split("│")[1].strip(), r.split("│")[2].strip()) for r in rows}
    assert cells == {(c, s) for c in ("SR-5-STATIC", "FULL") for s in ("100", "500", "700")}
    assert "SR-5-STATIC: episode at 700 / at 500 =" in out
    assert "FULL at 700:" in out and "ms per turn" in out


def test_scale_refuses_bad_sizes() -> None:
    for sizes in ("100,x", "0", ""):
        code, out = _sr("scale", "--sizes", sizes)
        assert code == 1 and "--sizes" in out


def test_anchor_says_clearly_when_the_extra_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(anchor, "inspect_version", lambda: None)
    code, out = _sr("anchor", "--tasks", "1")
    assert code == 1
    assert "needs inspect_ai" in out and "pip install -e '.[bench]'" in out


def test_anchor_prints_ours_beside_both_anchors(monkeypatch: pytest.MonkeyPatch) -> None:
    # The anchors' own measurements are replaced here; the real ones run in the tests below when installed.
    from runtime.engine import anchor_tools

    calls: list[tuple[str, bool]] = []

    def fake_cost(queries: list[str], *, turns: int, log_samples: bool) -> AnchorCost:
        calls.append(("bare", log_samples))
        return AnchorCost(samples=len(queries), turns=len(queries) * turns, cpu_s=0.5 if log_samples else 0.2)

    def fake_tools(episodes: list[anchor_tools.ReplayEpisode], *, log_samples: bool) -> AnchorCost:
        calls.append(("tools", log_samples))
        turns = sum(len(e.turns) for e in episodes)
        return AnchorCost(samples=len(episodes), turns=turns, cpu_s=0.9 if log_samples else 0.6)

    monkeypatch.setattr(anchor, "inspect_version", lambda: "0.0-test")
    monkeypatch.setattr(anchor, "inspect_mockllm_cost", fake_cost)
    monkeypatch.setattr(anchor_tools, "inspect_tool_loop_cost", fake_tools)
    code, out = _sr("anchor", "--tasks", "1", "--samples", "3", "--repeats", "2")
    assert code == 0, out
    per_repeat = [("tools", False), ("tools", True), ("bare", False), ("bare", True)]
    assert calls == [
        ("bare", False),
        ("tools", False),
        *per_repeat,
        *per_repeat,
    ]  # warm-ups, then interleaved
    assert "reference agent, 15 episodes" in out and "3 of our episodes" in out
    assert out.count("inspect_ai 0.0-test") == 4 and "sample logs off" in out and "sample logs on" in out
    assert "min" in out and "median" in out and "max" in out
    assert "inspect_ai tool loop replaying our episodes (sample logs off) / ours:" in out
    assert "inspect_ai bare generate loop (sample logs off) / ours:" in out


def test_anchor_runs_inspect_ai_mockllm() -> None:
    require_module("inspect_ai", extra="bench")
    code, out = _sr("anchor", "--tasks", "1", "--samples", "2", "--repeats", "1")
    assert code == 0, out
    assert "no tools, sample logs off" in out and "replaying our calls, sample logs off" in out


def test_the_tool_loop_replays_our_calls_through_inspect_ai(monkeypatch: pytest.MonkeyPatch) -> None:
    """inspect_ai runs each recorded call through its own tool execution: a valid call reaches the tool
    function (which returns the recorded result), one with missing required arguments is refused by
    inspect's own validation; the scorer agrees with the recorded outcomes or the eval is an error."""
    require_module("inspect_ai", extra="bench")
    from runtime.engine import anchor_tools
    from schemarouter.application.bench import REFERENCE_CATALOGS, _engine, _tasks, replay_episodes
    from schemarouter.project import ProjectPaths

    resources = _engine(ProjectPaths.at(ROOT), REFERENCE_CATALOGS)
    episodes = [(t, c.id, 100) for c in resources.compiled.conditions for t in _tasks(resources, 4)]
    replayed = replay_episodes(resources, episodes, len(episodes))
    executed: list[str] = []
    real = anchor_tools._tool_defs

    def recording(turn: anchor_tools.ReplayTurn) -> list[object]:
        defs = real(turn)
        for d in defs:
            inner = d.tool

            async def run(_inner: object = inner, _name: str = d.name, **kwargs: object) -> object:
                executed.append(_name)
                return await _inner(**kwargs)  # type: ignore[operator]

            d.tool = run
        return defs

    monkeypatch.setattr(anchor_tools, "_tool_defs", recording)
    cost = anchor_tools.inspect_tool_loop_cost(replayed, log_samples=False)
    assert cost.samples == len(episodes) and cost.turns == sum(len(e.turns) for e in replayed)
    recorded = [t.tool_name for e in replayed for t in e.turns if t.tool_name is not None]
    ok = [
        t.tool_name for e in replayed for t in e.turns if t.tool_name and '"status": "blocked"' not in t.text
    ]
    assert executed and set(executed) <= set(recorded)
    assert set(ok) <= set(executed)  # every call our simulator executed, inspect executed too
