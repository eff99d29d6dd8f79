"""Plots are drawn off the critical path: matplotlib loads only to draw, and a failed drawing is reported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from runtime.core.errors import SchemaRouterError
from runtime.report import publish
from runtime.report.plots import PLOT_FILES


@pytest.mark.parametrize(
    "module", ["runtime.report.publish", "schemarouter.application.run", "schemarouter.cli.app"]
)
def test_importing_does_not_load_matplotlib(module: str) -> None:
    code = f"import sys, {module}; sys.exit(1 if 'matplotlib' in sys.modules else 0)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="plots fork a child on Linux only")


@LINUX
def test_a_failed_drawing_is_a_clean_error(tmp_path: Path) -> None:
    # No report.json and no spec: drawing fails in the child, and waiting says so.
    job = publish.PlotJob(tmp_path, spec=None)  # type: ignore[arg-type]
    with pytest.raises(SchemaRouterError, match="drawing the plots failed"):
        job.wait()


def _recording_draw(out_dir: Path, spec: object, only: tuple[str, ...] = (), svg: bool = False) -> list[Path]:
    for name in only:
        (out_dir / f"{name}.pid").write_text(str(os.getpid()) + (" svg" if svg else ""))
    return []


@LINUX
def test_the_plots_are_shared_by_two_child_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(publish, "draw_plots", _recording_draw)
    monkeypatch.setattr(publish, "preload", lambda: None)  # the children's mechanics, not matplotlib
    job = publish.PlotJob(tmp_path, spec=None)  # type: ignore[arg-type]
    assert not list(tmp_path.iterdir())  # nothing is drawn before go()
    job.go()
    job.wait()
    pids = {name: int((tmp_path / f"{name}.pid").read_text()) for name in PLOT_FILES}
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()


@LINUX
def test_svg_is_drawn_only_on_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(publish, "draw_plots", _recording_draw)
    monkeypatch.setattr(publish, "preload", lambda: None)
    for svg in (False, True):
        out = tmp_path / str(svg)
        out.mkdir()
        job = publish.PlotJob(out, spec=None, svg=svg)  # type: ignore[arg-type]
        job.go()
        written = job.wait()
        marks = {(out / f"{name}.pid").read_text().endswith(" svg") for name in PLOT_FILES}
        assert marks == {svg}
        assert any(p.suffix == ".svg" for p in written) == svg


@LINUX
def test_a_cancelled_job_draws_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(publish, "draw_plots", _recording_draw)
    monkeypatch.setattr(publish, "preload", lambda: None)
    job = publish.PlotJob(tmp_path, spec=None)  # type: ignore[arg-type]
    job.cancel()
    assert not list(tmp_path.iterdir())
