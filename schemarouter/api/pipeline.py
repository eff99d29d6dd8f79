"""``compile``, ``verify``, ``freeze``: the spec lifecycle as typed calls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from runtime.core.progress import Progress
from runtime.spec_model import CompiledSpec
from schemarouter.api.project import ProjectArg, project_paths
from schemarouter.application.compiled import CompiledForRun
from schemarouter.application.verify import VerifyOutcome


def compile(
    project: ProjectArg = ".",
    *,
    experiment: str | None = None,
    require_frozen: bool = False,
    full: bool = False,
) -> CompiledSpec:
    """Validate, verify against the lock and write build/<id>/compiled.json (reused when current)."""
    return compile_outcome(project, experiment=experiment, require_frozen=require_frozen, full=full).spec


def compile_outcome(
    project: ProjectArg = ".",
    *,
    experiment: str | None = None,
    require_frozen: bool = False,
    full: bool = False,
    progress: Progress | None = None,
) -> CompiledForRun:
    """``compile`` with whether build/<id>/compiled.json was reused (``sr compile`` says which);
    ``progress`` gets each stage (``runtime/core/progress.py``)."""
    from schemarouter.application.compiled import compile_or_reuse

    paths = project_paths(project, experiment)
    return compile_or_reuse(paths, require_frozen=require_frozen, full=full, progress=progress)


def verify(
    project: ProjectArg = ".",
    *,
    experiment: str | None = None,
    all_experiments: bool = False,
    history: bool = False,
    canaries: bool = False,
) -> VerifyOutcome:
    """Check the lock(s) and the pinned code; ``.ok``, ``.lines`` (what held), ``.errors`` (what moved)."""
    from schemarouter.application.verify import verify_experiments

    paths = project_paths(project, experiment)
    return verify_experiments(paths, all_experiments=all_experiments, history=history, canaries=canaries)


@dataclass(frozen=True)
class FreezeResult:
    """What ``freeze`` did: the lock's message, a note (if any) and the code record's line."""

    message: str
    note: str | None
    code: str
    preflight: list[str]


def freeze(
    project: ProjectArg = ".",
    *,
    reason: str,
    experiment: str | None = None,
    accept_infeasible: str | None = None,
    show: Callable[[list[str]], None] | None = None,
) -> FreezeResult:
    """Preflight, freeze and pin the code; ``show`` receives the preflight's table before the decision."""
    from schemarouter.application.behaviour import require_declared_behaviour
    from schemarouter.application.code_pin import pin_code
    from schemarouter.application.freeze import FreezeRequest, freeze_experiment
    from schemarouter.application.preflight_text import preflight_lines

    paths = project_paths(project, experiment)
    require_declared_behaviour(paths)  # a successor: conditions whose canaries moved are declared
    outcome = freeze_experiment(
        paths,
        FreezeRequest(reason=reason, accept_infeasible=accept_infeasible),
        show=show or (lambda _l: None),
    )
    code = pin_code(paths, reason=reason, required=False)  # the code it executes, annexed
    table = [] if outcome.preflight is None else preflight_lines(outcome.preflight)
    return FreezeResult(message=outcome.message, note=outcome.note, code=code, preflight=table)
