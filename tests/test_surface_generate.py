"""`sr generate` is deterministic and `--check` catches any edit; `sr surface stats` counts every cell;
runtime never imports networkx."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from runtime.surface import load_surface
from schemarouter.cli.app import app

ROOT = Path(__file__).resolve().parents[1]


def _project_copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "spec" / "0.14", tmp_path / "spec")
    shutil.copytree(ROOT / "catalogs" / "0.14", tmp_path / "catalogs")
    return tmp_path


def test_generate_check_passes_on_committed_data_and_fails_after_an_edit(tmp_path):
    project = _project_copy(tmp_path)
    runner = CliRunner()
    ok = runner.invoke(app, ["--project-dir", str(project), "generate", "--check"])
    assert ok.exit_code == 0, ok.output
    surface = project / "catalogs" / "surface.jsonl"
    surface.write_text(
        surface.read_text(encoding="utf-8").replace("Big Ben", "Big  Ben", 1), encoding="utf-8"
    )
    bad = runner.invoke(app, ["--project-dir", str(project), "generate", "--check"])
    assert bad.exit_code == 1 and "surface.jsonl" in bad.output
    rewrite = runner.invoke(app, ["--project-dir", str(project), "generate"])
    assert rewrite.exit_code == 0 and "surface.jsonl" in rewrite.output
    assert surface.read_bytes() == (ROOT / "catalogs" / "0.14" / "surface.jsonl").read_bytes()


def test_a_spec_error_is_one_clean_message(tmp_path):
    project = _project_copy(tmp_path)
    intents = project / "spec" / "intents.yaml"
    intents.write_text(intents.read_text(encoding="utf-8").replace("goal: weather.forecast.daily", "goal: 7"))
    result = CliRunner().invoke(app, ["--project-dir", str(project), "generate"])
    assert result.exit_code == 1
    assert "spec/intents.yaml" in result.output and "Traceback" not in result.output


def test_surface_stats_prints_every_cell():
    result = CliRunner().invoke(app, ["--project-dir", str(ROOT), "surface", "stats"], terminal_width=200)
    assert result.exit_code == 0, result.output
    tasks = load_surface(ROOT / "catalogs" / "0.14")
    for stratum in {t.stratum for t in tasks}:
        assert stratum in result.output
    assert "180" in result.output and "catalog_500" in result.output


def test_visible_task_has_no_hidden_parts():
    task = load_surface(ROOT / "catalogs" / "0.14")[0]
    visible = task.visible().model_dump()
    assert set(visible) == {"task_id", "stratum", "language", "query", "grants"}
    assert "hidden" not in task.visible().model_dump_json()


def test_no_runtime_module_imports_networkx():
    code = (
        "import importlib, pkgutil, sys\n"
        "import runtime as rt\n"
        "for m in pkgutil.walk_packages(rt.__path__, 'runtime.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n == 'networkx' or n.startswith('networkx.'))\n"
        "assert not bad, bad\n"
        "assert not any(n.startswith('compiler') for n in sys.modules)\n"
        "print(len([n for n in sys.modules if n.startswith('runtime')]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) > 10
