"""`sr surface recall` ranks with the experiment's own strategy (retriever.yaml ``strategy`` and params),
not with 0.14's text_concat whatever the experiment says."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from runtime.retrieval.strategy import build_from_spec, strategy_of
from schemarouter.application.retrieval_io import project_catalog, project_retriever_spec, recall_tasks
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

ROOT = Path(__file__).resolve().parents[1]


def _found_at_100(experiment: str) -> tuple[str, int]:
    result = CliRunner().invoke(
        app,
        ["--project-dir", str(ROOT), "surface", "recall", "-e", experiment, "--catalogs", "100"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    title = re.search(r"static top-5 recall per catalog \(strategy (\w+)\)", result.output)
    row = re.search(r"│\s+100 │ \*\s+│ \*\s+│\s+180 │\s+(\d+)/432", result.output)
    assert title and row, result.output
    return title.group(1), int(row.group(1))


def _direct(experiment: str) -> tuple[str, int]:
    paths = ProjectPaths.at(ROOT, experiment=experiment)
    spec = project_retriever_spec(paths)
    strategy = build_from_spec(spec, project_catalog(paths, 100))
    found = sum(
        len(set(t.required_route_ids) & set(strategy.rank_query(t.query, 5).route_ids))
        for t in recall_tasks(paths)
    )
    return strategy_of(spec)[0], found


def test_each_experiment_is_ranked_by_its_own_strategy() -> None:
    old, new = _found_at_100("0.14"), _found_at_100("0.15")
    assert old == _direct("0.14") and old[0] == "text_concat"
    assert new == _direct("0.15") and new[0] == "typed_state"
    assert new[1] != old[1]  # 0.15's demotions move the original query's top 5
