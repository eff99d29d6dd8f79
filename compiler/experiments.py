"""The experiments of a project: their ids, status and lineage (``sr experiments``).

Status, from the experiment's lock: ``draft`` (no lock), ``frozen`` (a lock, no scored run),
``scoring started`` (the lock records the first scored run). Lineage, from ``spec/<id>/lineage.yaml``
(written by ``sr experiment new``): the parent, the parent's freeze root when the successor was made,
and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.spec_files import read_text
from compiler.yaml_loader import load_yaml_text
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONValue
from runtime.spec_model import read_lock
from schemarouter.project import ProjectPaths, experiment_ids

LINEAGE_FILE = "lineage.yaml"
DEVIATIONS_FILE = "deviations.yaml"
PROTOCOL_FILE = "protocol.yaml"


@dataclass(frozen=True)
class Lineage:
    """Where a successor came from."""

    parent: str
    parent_root: str | None
    reason: str


@dataclass(frozen=True)
class ExperimentInfo:
    """One line of ``sr experiments``."""

    experiment_id: str
    status: str
    root: str | None
    lineage: Lineage | None
    default: bool
    problem: str | None = None
    peeks: tuple[str, ...] = ()  # run ids of evaluation runs while a draft (spec/peeks.yaml)
    pilots: tuple[tuple[str, int], ...] = ()  # runs per surface while a draft (spec/pilots.yaml)
    confirmations: int = 0  # runs on confirmation surfaces (spec/confirmation.yaml)


def read_spec_data(paths: ProjectPaths, name: str) -> JSONValue:
    """The data of ``spec/<name>`` of the experiment (strict loader: plain JSON data), or None if the file
    is absent."""
    path = paths.spec_dir / name
    if not path.is_file():
        return None
    display = path.relative_to(paths.root).as_posix()
    text, problem = read_text(path, display)
    if text is None:
        raise SchemaRouterError(str(problem))
    loaded = load_yaml_text(text, file=display)
    if loaded.issues:
        raise SchemaRouterError("\n".join(str(issue) for issue in loaded.issues))
    data: JSONValue = loaded.data
    return data


def experiment_id_of(paths: ProjectPaths) -> str:
    """The experiment's id as its experiment.yaml states it (the directory name, failing that)."""
    data = read_spec_data(paths, "experiment.yaml")
    if isinstance(data, dict) and data.get("id") is not None:
        return str(data["id"])
    return paths.experiment or paths.root.name


def lineage_of(paths: ProjectPaths) -> Lineage | None:
    data = read_spec_data(paths, LINEAGE_FILE)
    if not isinstance(data, dict):
        return None
    return Lineage(
        parent=str(data.get("parent")),
        parent_root=None if (root := data.get("parent_root")) is None else str(root),
        reason=str(data.get("reason", "")),
    )


def experiment_info(paths: ProjectPaths, *, default: bool = False) -> ExperimentInfo:
    """Status, root and lineage of one experiment; a problem reading it is shown, not raised."""
    experiment = paths.experiment or experiment_id_of(paths)
    try:
        lock = read_lock(paths.lock_file, display=paths.lock_display)
        lineage = lineage_of(paths)
        from compiler.peeks import read_peeks

        peeks = tuple(str(p.get("run_id")) for p in read_peeks(paths))
        from compiler.confirmations import confirmations
        from compiler.pilots import pilot_counts, read_pilots

        pilots = tuple(pilot_counts(read_pilots(paths)).items())
        confirmed = len(confirmations(paths))
    except SchemaRouterError as err:
        return ExperimentInfo(experiment, "unreadable", None, None, default, problem=str(err))
    if lock is None:
        status, root = "draft", None
    else:
        status = "scoring started" if lock.scoring_started is not None else "frozen"
        root = lock.root.digest
    return ExperimentInfo(
        experiment, status, root, lineage, default, peeks=peeks, pilots=pilots, confirmations=confirmed
    )


def list_experiments(paths: ProjectPaths) -> list[ExperimentInfo]:
    """Every experiment of the project (one for a flat project)."""
    if paths.experiment is None:
        return [experiment_info(paths, default=True)]
    from schemarouter.project_file import read_project_file

    default = read_project_file(paths.root).default_experiment
    return [
        experiment_info(paths.with_experiment(eid), default=eid == default)
        for eid in experiment_ids(paths.root)
    ]
