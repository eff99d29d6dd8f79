"""The spec compiler: load -> validate -> freeze/verify -> compile (see README.md beside this file).

Public functions (the CLI and other areas call these; each raises SchemaRouterError with a complete
message on a user's mistake):

* ``validate_project(paths) -> ValidatedSpecs``
* ``freeze_project(paths, *, reason) -> FreezeResult``
* ``verify_project(paths) -> VerifyReport`` (never raises on drift; ``report.clean``)
* ``require_verified(paths) -> VerifyReport`` (raises on drift)
* ``compile_project(paths, *, write_manifest=True, require_frozen=False) -> CompiledSpec``
* ``record_scoring_started(paths, run_id, *, compiled) -> ScoringStarted`` (from the runtime)

The names are imported on first use (PEP 562), so importing one submodule, such as
``compiled_record`` for reusing a current build, does not load the validator and every check.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compiler.compile import build_compiled_spec, compile_project, write_compiled
    from compiler.freeze import FreezeResult, freeze_project
    from compiler.issues import SpecIssue, SpecValidationError
    from compiler.validate import ValidatedSpecs, validate_project
    from compiler.verify import VerifyReport, require_verified, verify_project
    from runtime.spec_model.lock import record_scoring_started, scoring_started

_HOMES = {
    "build_compiled_spec": "compile",
    "compile_project": "compile",
    "write_compiled": "compile",
    "FreezeResult": "freeze",
    "freeze_project": "freeze",
    "SpecIssue": "issues",
    "SpecValidationError": "issues",
    "ValidatedSpecs": "validate",
    "validate_project": "validate",
    "VerifyReport": "verify",
    "require_verified": "verify",
    "verify_project": "verify",
}
_LOCK_NAMES = ("record_scoring_started", "scoring_started")

__all__ = [
    "FreezeResult",
    "SpecIssue",
    "SpecValidationError",
    "ValidatedSpecs",
    "VerifyReport",
    "build_compiled_spec",
    "compile_project",
    "freeze_project",
    "record_scoring_started",
    "require_verified",
    "scoring_started",
    "validate_project",
    "verify_project",
    "write_compiled",
]


def __getattr__(name: str) -> Any:
    if name in _LOCK_NAMES:
        module = importlib.import_module("runtime.spec_model.lock")
    elif name in _HOMES:
        module = importlib.import_module(f"{__name__}.{_HOMES[name]}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value
    return value
