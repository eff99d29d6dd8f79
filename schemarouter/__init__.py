"""SchemaRouter: a preregistered experiment harness for tool retrieval in multi-step LLM agents.

The pipeline is spec -> compiler -> runtime -> golden:

* ``spec/`` holds the YAML specs (state contract, conditions, strata, metrics, gates, ...).
* :mod:`schemarouter.compiler` loads, validates, freezes, verifies and compiles them, and generates
  the catalogs and the task surface.
* :mod:`schemarouter.runtime` runs episodes and scores them; it never imports the compiler.
* ``golden/`` pins the reference run's gate output.
"""

__version__ = "0.1.0"
