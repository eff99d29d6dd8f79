"""Shared by every test: the state boundary enforces the repository experiment's contract.

The engine installs the compiled experiment's guard vocabulary when it loads; tests that build state
directly (some at import time) get the same vocabulary here, compiled once from spec/0.14/ when pytest
loads this file, before any test module (build/0.14/ is written, or reused when current, as `sr run`
does). Nothing of the vocabulary is pinned in code.

Console output is checked at one fixed width (COLUMNS=200, which rich reads), so no test depends on the
terminal, or the lack of one, that pytest or one of its worker processes runs under.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime.state.guard import install_from_compiled, install_guard, installed_guard
from schemarouter.application.compiled import compiled_for_run
from schemarouter.project import ProjectPaths

REPO = Path(__file__).resolve().parents[1]
os.environ["COLUMNS"] = "200"
# Commands print no progress lines on stderr (which CliRunner mixes into the output the tests read), so
# a slow machine never adds a line; tests/test_command_progress.py turns it on where it checks it.
os.environ["SR_PROGRESS"] = "off"

# The repository's build is made current (as `make run` leaves it), so commands the tests run on the
# repository itself reuse it rather than compiling again.
RECORD_GUARD = install_from_compiled(compiled_for_run(ProjectPaths.at(REPO)).spec)


@pytest.fixture(autouse=True)
def _record_contract_after_each_test() -> Iterator[None]:
    """The state guard is installed per process (the command that reads a state installs its
    experiment's). A test that runs a successor in-process installs the successor's contract, with its
    declarable fields; put 0.14's back so the next test of the same worker starts where this one did."""
    yield
    if installed_guard() is not RECORD_GUARD:
        install_guard(RECORD_GUARD.vocabulary)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Modules marked ``slow`` (full runs, clusters, many commands) come first, each kept whole and in
    name order: with ``--dist loadscope --no-loadscope-reorder`` the workers take the long modules
    before the short ones, so they finish together. The order is fixed by the markers, not by timings."""
    items.sort(key=lambda item: 0 if item.get_closest_marker("slow") else 1)
