"""Plots are drawn off the critical path: matplotlib loads only to draw, and a failed drawing is reported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter.errors import SchemaRouterError
from schemarouter.runtime.report import publish


@pytest.mark.parametrize(
    "module", ["schemarouter.runtime.report.publish", "schemarouter.cli.run_flow", "schemarouter.cli.app"]
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


@LINUX
def test_plots_are_drawn_in_a_child_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_draw(out_dir: Path, spec: object) -> list[Path]:
        (out_dir / "pid.txt").write_text(str(os.getpid()))
        return []

    monkeypatch.setattr(publish, "draw_plots", fake_draw)
    publish.PlotJob(tmp_path, spec=None).wait()  # type: ignore[arg-type]
    assert int((tmp_path / "pid.txt").read_text()) != os.getpid()
