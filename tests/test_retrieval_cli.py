"""`sr retrieve` on a small project: ranking with scores, state files, clean errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from retrieval_toy_catalog import TOY_CATALOG
from typer.testing import CliRunner

from runtime.catalog.io import catalog_path, dump_catalog
from runtime.catalog.model import Catalog
from runtime.retrieval.synthetic import scaled_endpoints
from runtime.state import ObservableState
from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # A draft copy of the experiment's specs (commands read the compiled experiment) with a toy catalog.
    root = tmp_path_factory.mktemp("project")
    shutil.copytree(ROOT / "spec" / "0.14", root / "spec", ignore=shutil.ignore_patterns("freeze.lock"))
    (root / "catalogs").mkdir()
    endpoints = tuple(scaled_endpoints(TOY_CATALOG.endpoints, 100, seed=1))
    catalog = Catalog(size=100, endpoints=tuple(sorted(endpoints, key=lambda e: e.route_id)))
    catalog_path(root / "catalogs", 100).write_text(dump_catalog(catalog), encoding="utf-8")
    return root


def _sr(project: Path, *args: str) -> object:
    return CliRunner().invoke(app, ["--project-dir", str(project), *args])


def test_retrieve_prints_ranking_with_scores(project: Path) -> None:
    result = _sr(project, "retrieve", "--catalog", "100", "-k", "3", "refund my payment")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    out = result.output  # type: ignore[attr-defined]
    assert "payments.refund" in out and "original" in out
    assert out.count("payments.refund") <= 3


def test_retrieve_with_state_file(project: Path, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(ObservableState.initial().with_task_incomplete(False).canonical_json())
    result = _sr(project, "retrieve", "--catalog", "100", "--state", str(state), "weather tomorrow")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    assert "original_plus_state" in result.output  # type: ignore[attr-defined]


def test_forbidden_state_file_is_a_clean_error(project: Path, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text('{"gold_next_route_id": "payments.refund.create.v1"}')
    result = _sr(project, "retrieve", "--catalog", "100", "--state", str(state), "weather")
    assert result.exit_code == 1
    assert "gold_next_route_id" in result.output  # type: ignore[attr-defined]
    assert "Traceback" not in result.output  # type: ignore[attr-defined]


def test_missing_catalog_is_a_clean_error(project: Path) -> None:
    result = _sr(project, "retrieve", "--catalog", "250", "weather")
    assert result.exit_code == 1
    assert "sr generate" in result.output  # type: ignore[attr-defined]


CATALOGS = ROOT / "catalogs" / "0.14"
needs_surface = pytest.mark.skipif(
    not (CATALOGS / "surface.jsonl").exists(), reason="catalogs/ not generated yet"
)


@needs_surface
def test_surface_recall_reports_every_cell() -> None:
    result = CliRunner().invoke(
        app,
        ["--project-dir", str(ROOT), "surface", "recall", "--catalogs", "100", "--misses"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    out = result.output
    for heading in (
        "static top-5 recall per catalog",
        "per stratum",
        "per language",
        "per stratum x language",
    ):
        assert heading in out
    assert "two_step_state" in out and " zh " in out
    assert "missing" in out, "the surface's implicit intermediates are reported as misses"


@needs_surface
def test_bench_retrieval_prints_ratios() -> None:
    result = CliRunner().invoke(
        app,
        ["--project-dir", str(ROOT), "bench", "retrieval", "--synthetic", "600", "--repeats", "1"],
        env={"COLUMNS": "250"},
    )
    assert result.exit_code == 0, result.output
    for column in ("ours/raw orig", "ours/raw state", "bm25s/ours orig", "bm25s/ours state", "build s"):
        assert column in result.output
    assert "600 synthetic" in result.output and "×" in result.output
