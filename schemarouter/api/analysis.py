"""``explain`` and ``compare``: the diagnostics of scored runs, as text and data."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from runtime.core.json_value import JSONObject
from schemarouter.api.project import ProjectArg, project_paths

if TYPE_CHECKING:  # the annotation only: importing the library face loads no diagnostics
    from runtime.diagnostics.compare import PairedComparison
    from runtime.diagnostics.compare_unpaired import UnpairedComparison


@dataclass(frozen=True)
class Explanation:
    """``sr explain``'s text and the report's diagnostics it renders."""

    text: str
    diagnostics: JSONObject


@dataclass(frozen=True)
class Comparison:
    """``sr compare``'s text and its data (paired B - A over the common tasks)."""

    text: str
    data: PairedComparison | UnpairedComparison


def explain(
    run_dir: Path | str,
    *,
    condition: str | None = None,
    catalog: int | None = None,
    project: ProjectArg | None = None,
) -> Explanation:
    """Why the verdict, from the stored traces; ``project`` names each condition's retriever."""
    from schemarouter.application.diagnostics import explain_run, run_retrievers

    retrievers = None if project is None else run_retrievers(project_paths(project), Path(run_dir))
    explained = explain_run(Path(run_dir), condition=condition, catalog=catalog, retrievers=retrievers)
    return Explanation(text=explained.text, diagnostics=dict(explained.report.get("diagnostics") or {}))


def compare(run_a: Path | str, run_b: Path | str) -> Comparison:
    """Paired differences B - A per metric over the common tasks, with bootstrap intervals."""
    from schemarouter.application.diagnostics import compare_run_dirs

    text, data = compare_run_dirs(Path(run_a), Path(run_b))
    return Comparison(text=text, data=data)
