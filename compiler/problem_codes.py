"""Every validation problem's stable code, with its one-line summary.

Each module that reports problems declares them where it reports them, in a ``PROBLEMS`` dict (code ->
summary), and passes the code with each issue (``view.issue(..., code="MG109")``). This module gathers
them; ``sr validate --codes`` prints the codes beside the problems, and each code has a case file of
failing and passing inputs in ``tests/cases/validation/<code>.yaml``. A code is never reused for another
problem: a retired problem keeps its code out of use.

Prefixes: LD (loading: the file is not plain data), SV (a spec does not fit its JSON Schema, or the
schema itself is broken), CK (a semantic check could not run), PR (protocol.yaml), SC (state contract),
CO (conditions), MG (metrics and gates), SU (strata and surface), RT (retriever strategy).
"""

from __future__ import annotations

from compiler.issues import LOAD_CODE

LOAD_SUMMARY = (
    "the file is not plain data: encoding, YAML or JSON syntax, anchors, tags, duplicate keys, depth, name"
)

# The modules that report problems (each declares PROBLEMS).
_MODULES = (
    "schema_validation",
    "semantic_view",
    "protocol_file",
    "checks_state_contract",
    "checks_conditions",
    "checks_variants",
    "checks_metrics_gates",
    "checks_surface",
    "checks_retriever",
)


def problem_codes() -> dict[str, str]:
    """Code -> summary, for every problem the compiler can report."""
    import importlib

    codes = {LOAD_CODE: LOAD_SUMMARY}
    for name in _MODULES:
        module = importlib.import_module(f"compiler.{name}")
        for code, summary in module.PROBLEMS.items():
            if code in codes:
                raise AssertionError(f"problem code {code} is declared twice")
            codes[code] = summary
    return dict(sorted(codes.items()))
