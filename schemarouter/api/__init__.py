"""The library face of SchemaRouter: typed functions over the application layer, printing nothing.

``import schemarouter`` re-exports these lazily (``schemarouter/__init__.py``), so importing any part
of the package never loads the engine. Every function takes parsed values (``conditions=["SR-5-STATIC"]``,
``catalogs=[100]``), returns typed results, prints nothing, and reports progress only through a
``progress`` callback (or rich output when the caller passes ``console=``). The CLI calls the same
functions (``schemarouter/cli``).
"""

from __future__ import annotations

from schemarouter.api import catalog, retrieval
from schemarouter.api.analysis import Comparison, Explanation, compare, explain
from schemarouter.api.pipeline import FreezeResult, compile, freeze, verify
from schemarouter.api.run_view import Run, load_run
from schemarouter.api.runs import run, score

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
