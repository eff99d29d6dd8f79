"""SchemaRouter: a preregistered experiment harness for tool retrieval in multi-step LLM agents.

The pipeline is spec -> compiler -> runtime -> golden:

* ``spec/`` holds the YAML specs (state contract, conditions, strata, metrics, gates, ...).
* :mod:`compiler` loads, validates, freezes, verifies and compiles them, and generates
  the catalogs and the task surface.
* :mod:`runtime` runs episodes and scores them; it never imports the compiler.
* ``golden/`` pins the reference run's gate output.

As a library (README, "From Python")::

    import schemarouter as sr
    run = sr.run("path/to/project", conditions=["SR-5-STATIC"], catalogs=[100], tasks=["S1"])
    run.report.gate.verdict, run.episodes().to_pandas()

The names of ``__all__`` live in :mod:`schemarouter.api` and are imported on first use, so importing
any module of the package (``runtime.core.errors``, ...) never loads the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "Comparison",
    "Explanation",
    "FreezeResult",
    "Run",
    "SchemaRouterError",
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

if TYPE_CHECKING:
    from runtime.core.errors import SchemaRouterError
    from schemarouter.api import (
        Comparison,
        Explanation,
        FreezeResult,
        Run,
        catalog,
        compare,
        compile,
        explain,
        freeze,
        load_run,
        retrieval,
        run,
        score,
        verify,
    )


def __getattr__(name: str) -> Any:
    """The public names, imported on first use (PEP 562)."""
    if name == "SchemaRouterError":
        from runtime.core.errors import SchemaRouterError

        return SchemaRouterError
    if name in __all__:
        from schemarouter import api

        return getattr(api, name)
    raise AttributeError(f"module 'schemarouter' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
