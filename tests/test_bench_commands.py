"""`sr bench scale` and `sr bench anchor` run and print their rows on tiny inputs. No timing is asserted."""

from __future__ import annotations

from pathlib import Path

import pytest
from extras import require_module
from typer.testing import CliRunner

from schemarouter.cli.app import app
from schemarouter.runtime.engine import anchor
from schemarouter.runtime.engine.anchor import AnchorCost

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


def test_anchor_prints_ours_beside_the_anchor(monkeypatch: pytest.MonkeyPatch) -> None:
    # The anchor's own measurement is replaced here; the real one runs in the test below when installed.
    calls: list[bool] = []

    def fake_cost(queries: list[str], *, turns: int, log_samples: bool) -> AnchorCost:
        calls.append(log_samples)
        return AnchorCost(samples=len(queries), turns=len(queries) * turns, cpu_s=0.5 if log_samples else 0.2)

    monkeypatch.setattr(anchor, "inspect_version", lambda: "0.0-test")
    monkeypatch.setattr(anchor, "inspect_mockllm_cost", fake_cost)
    code, out = _sr("anchor", "--tasks", "1", "--samples", "3", "--repeats", "2")
    assert code == 0, out
    assert calls == [False, False, True, False, True]  # a warm-up, then off/on interleaved per repeat
    assert "reference agent, 15 episodes" in out
    assert out.count("inspect_ai 0.0-test") == 2 and "sample logs off" in out and "sample logs on" in out
    assert "ms CPU per model turn" in out and "inspect_ai mockllm (sample logs off) / ours:" in out


def test_anchor_runs_inspect_ai_mockllm() -> None:
    require_module("inspect_ai", extra="bench")
    code, out = _sr("anchor", "--tasks", "1", "--samples", "2", "--repeats", "1")
    assert code == 0, out
    assert "mockllm/model, sample logs off" in out and "mockllm/model, sample logs on" in out
