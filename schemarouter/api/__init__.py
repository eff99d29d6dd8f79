"""The library face of SchemaRouter: typed functions over the application layer, printing nothing.

``import schemarouter`` re-exports these lazily (``schemarouter/__init__.py``), so importing any part
of the package never loads the engine. Every function takes parsed values (``conditions=["SR-5-STATIC"]``,
``catalogs=[100]``), returns typed results, prints nothing, and reports progress only through a
``progress`` callback (or rich output when the caller passes ``console=``). The CLI calls the same
functions (``schemarouter/cli``).

The names are imported on first use (PEP 562), as ``schemarouter`` does: ``sr compile`` reaches
``schemarouter.api.pipeline`` without loading the retrieval evaluation, the run view or the runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "Comparison",
    "Explanation",
    "FreezeResult",
    "Run",
    "catalog",
    "compare",
    "compile",
    "explain",
    "freeze",
    "load_run",
    "retrieval",
    "run",
    "score",
    "verify",
]

# name -> the module of this package that defines it (a module name alone: the name is that module)
_HOME = {
    "Comparison": "analysis",
    "Explanation": "analysis",
    "compare": "analysis",
    "explain": "analysis",
    "FreezeResult": "pipeline",
    "compile": "pipeline",
    "freeze": "pipeline",
    "verify": "pipeline",
    "Run": "run_view",
    "load_run": "run_view",
    "run": "runs",
    "score": "runs",
    "catalog": "catalog",
    "retrieval": "retrieval",
}

if TYPE_CHECKING:
    from schemarouter.api import catalog, retrieval
    from schemarouter.api.analysis import Comparison, Explanation, compare, explain
    from schemarouter.api.pipeline import FreezeResult, compile, freeze, verify
    from schemarouter.api.run_view import Run, load_run
    from schemarouter.api.runs import run, score


def __getattr__(name: str) -> Any:
    """The public names, imported on first use (PEP 562) and kept as module attributes."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'schemarouter.api' has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{home}")
    value = module if home == name else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
