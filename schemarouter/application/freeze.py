"""``sr freeze``: the compiler's freeze, preceded by the preflight (``preflight.py``).

Order: a freeze that would change nothing, or that the lock refuses (scoring started), goes straight to
the compiler (no pilot is run for it) -> validate (an invalid spec fails before any episode runs) ->
the preflight on the development surface -> refuse an unreachable criterion unless the owner gives
``--accept-infeasible "reason"`` -> freeze, keeping the preflight's table and the reason in the lock
(``preflight``).

A project that holds no development surface (``spec/_surfaces/dev/``) cannot be preflighted: the freeze
goes ahead, says so, and the lock has no ``preflight`` record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from runtime.core.errors import SchemaRouterError
from schemarouter.application.preflight import Preflight, PreflightRequest, has_pilot_surface, run_preflight
from schemarouter.project import ProjectPaths


@dataclass(frozen=True)
class FreezeRequest:
    reason: str
    accept_infeasible: str | None = None
    preflight: PreflightRequest = field(default_factory=PreflightRequest)


@dataclass(frozen=True)
class FreezeOutcome:
    message: str
    preflight: Preflight | None
    note: str | None


def freeze_experiment(
    paths: ProjectPaths, request: FreezeRequest, *, show: Callable[[list[str]], None] = lambda _l: None
) -> FreezeOutcome:
    """Preflight, then freeze; ``show`` receives the preflight's table before the freeze is decided."""
    from compiler import freeze_project, validate_project
    from compiler.run_records import record_problems
    from schemarouter.application.preflight_text import preflight_lines

    broken = record_problems(paths)  # a hand-edited pilots.yaml or confirmation.yaml: before any pilot
    if broken:
        raise SchemaRouterError(f"{broken[0]}; nothing was frozen")
    accept = (request.accept_infeasible or "").strip() or None
    if request.accept_infeasible is not None and accept is None:
        raise SchemaRouterError('--accept-infeasible needs a reason: --accept-infeasible "<why>"')
    if not request.reason.strip() or not _would_write(paths):
        result = freeze_project(paths, reason=request.reason)
        return FreezeOutcome(result.message(), None, None)
    validate_project(paths)
    if not has_pilot_surface(paths, request.preflight.surface):
        skipped = (
            f"preflight: not run (no {request.preflight.surface} surface in this project); the lock "
            "records no preflight"
        )
        return FreezeOutcome(freeze_project(paths, reason=request.reason).message(), None, skipped)
    pre = run_preflight(paths, request.preflight)
    show(preflight_lines(pre))
    unreachable = pre.unreachable()
    if unreachable and accept is None:
        verdicts = pre.verdicts()
        shown = "; ".join(f"{code} {verdicts[code]}" for code in unreachable)
        raise SchemaRouterError(
            f"{paths.display('spec/gates.yaml')}: {shown}: the gate cannot pass under this protocol; "
            'freeze anyway only with --accept-infeasible "<why>" (kept in the lock); nothing was frozen'
        )
    note = None
    if accept is not None and not unreachable:
        note = "--accept-infeasible: every criterion is reachable; no reason recorded"
    record = pre.record(accept if unreachable else None)
    result = freeze_project(paths, reason=request.reason, preflight=record)
    return FreezeOutcome(result.message(), pre, note)


def _would_write(paths: ProjectPaths) -> bool:
    """Whether ``sr freeze`` would write (a change to freeze, no scoring record to refuse it)."""
    from compiler.verify import current_fingerprints, verify_project
    from runtime.spec_model.lock import read_lock

    previous = read_lock(paths.lock_file, display=paths.lock_display)
    if previous is None:
        return True
    report = verify_project(paths, current=current_fingerprints(paths))
    return not report.clean and not report.lock_problems and previous.scoring_started is None
