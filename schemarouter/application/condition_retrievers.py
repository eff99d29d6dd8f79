"""Which retrieval strategy each condition of an experiment ranks with (issue #25).

A condition names its own (``conditions[].retriever``) or takes the experiment's retriever.yaml
strategy (absent: text_concat, 0.14's). ``sr explain`` prints this beside a run's diagnostics; it is
read from the project's current compiled spec of the run's experiment, never stored in report.json
(whose bytes a frozen run of record keeps).
"""

from __future__ import annotations

from runtime.retrieval import RetrieverSpec
from runtime.retrieval.strategy import DEFAULT_STRATEGY
from runtime.spec_model import CompiledSpec


def condition_retrievers(compiled: CompiledSpec) -> dict[str, str]:
    """Condition id -> ``code (own)`` or ``code (experiment's)``; conditions that do not retrieve are
    left out."""
    spec = RetrieverSpec.from_compiled(compiled)
    default = spec.strategy.code if spec.strategy is not None else DEFAULT_STRATEGY
    out = {}
    for condition in compiled.conditions:
        if condition.retrieval_query == "none":
            continue
        own = condition.retriever
        out[condition.id] = f"{own.code} (its own)" if own is not None else f"{default} (the experiment's)"
    return out


def retriever_line(retrievers: dict[str, str], conditions: list[str]) -> str:
    """One line for ``sr explain``: each of the run's retrieving conditions and its strategy."""
    named = [f"{c} {retrievers[c]}" for c in conditions if c in retrievers]
    return "Retrievers: " + ("; ".join(named) if named else "none")
