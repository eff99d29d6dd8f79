"""Shared by every test: the state boundary enforces the repository experiment's contract.

The engine installs the compiled experiment's guard vocabulary when it loads; tests that build state
directly (some at import time) get the same vocabulary here, compiled once from spec/0.14/ when pytest
loads this file, before any test module. Nothing of the vocabulary is pinned in code.
"""

from __future__ import annotations

from pathlib import Path

from schemarouter.compiler import compile_project
from schemarouter.project import ProjectPaths
from schemarouter.runtime.state.guard import install_from_compiled

REPO = Path(__file__).resolve().parents[1]

install_from_compiled(compile_project(ProjectPaths.at(REPO), write_manifest=False))
