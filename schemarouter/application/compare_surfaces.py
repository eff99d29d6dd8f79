"""``sr compare`` across surfaces: two scored runs with no common episode are compared unpaired.

The contrast table comes from ``runtime/diagnostics/compare_unpaired.py``. Beside it, for a pilot of a
successor whose other run is not a pilot of its parent on the same surface, the command that makes
that run (the comparison a reader wants is successor vs parent on one surface, paired).
"""

from __future__ import annotations

from pathlib import Path

from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject
from runtime.diagnostics.compare import identity
from runtime.diagnostics.compare_unpaired import UnpairedComparison, compare_unpaired
from runtime.report.compare_unpaired_text import render_unpaired
from runtime.run import read_manifest
from runtime.run.manifest import RunManifest


def compare_across_surfaces(
    run_dirs: tuple[Path, Path],
    reports: list[JSONObject],
    rows: list[list[JSONObject]],
    titles: dict[str, str],
) -> tuple[str, UnpairedComparison]:
    """The unpaired comparison's text and data."""
    for run_dir, report in zip(run_dirs, reports, strict=True):
        if "metric_definitions" not in report:
            raise SchemaRouterError(
                f"{run_dir}: report.json version {report.get('report_version')} has no metric definitions; "
                f"score the run again (sr score {run_dir})"
            )
    result = compare_unpaired(reports[0], rows[0], reports[1], rows[1])
    result["a"], result["b"] = identity(reports[0]), identity(reports[1])
    manifests = [read_manifest(d) for d in run_dirs]
    result["suggestions"] = parent_pilot_suggestions(manifests)
    return render_unpaired(result, str(run_dirs[0]), str(run_dirs[1]), titles), result


def _surface_option(manifest: RunManifest) -> str:
    surface = manifest.surface
    if surface is None:
        return ""
    if surface.name in ("file", "confirmation"):
        return f" --surface-file {surface.path}"
    return f" --surface {surface.name}"


def parent_pilot_suggestions(manifests: list[RunManifest]) -> list[str]:
    """For a successor's pilot whose counterpart is not its parent's run on the same surface: the
    command that makes one."""
    lines = []
    for index, manifest in enumerate(manifests):
        other = manifests[1 - index]
        parent = (manifest.lineage or {}).get("parent")
        if manifest.surface is None or not parent:
            continue
        if (
            other.experiment_id == parent
            and other.surface is not None
            and other.surface.name == manifest.surface.name
        ):
            continue
        lines.append(
            f"RUN_{'AB'[index]} is a {manifest.surface.name} pilot of {manifest.experiment_id}, and its "
            f"parent {parent} has none on that surface here; a paired comparison needs one: "
            f"sr run --experiment {parent}{_surface_option(manifest)}, then sr compare it with this run"
        )
    return lines
