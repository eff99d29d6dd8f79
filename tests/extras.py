"""Tests that need an optional extra (a browser, Ray, pyarrow, inspect_ai, the MCP SDK, ...).

On a developer's machine without the extra, such a test is skipped with the install line in its reason.
CI sets ``SR_REQUIRE_EXTRAS=1`` (see .ci/run, which installs every extra first): there a missing extra is
a failure, so a green CI can never hide a test that did not run.

    from extras import require_module, require_executable

    pyarrow = require_module("pyarrow", extra="export")      # at module level or inside a test
    chromium = require_executable("chromium", apt="chromium")
"""

from __future__ import annotations

import importlib
import os
import shutil
from types import ModuleType

import pytest

REQUIRED = os.environ.get("SR_REQUIRE_EXTRAS") == "1"


def _missing(what: str, how: str) -> None:
    message = f"{what} is not installed ({how})"
    if REQUIRED:
        pytest.fail(f"SR_REQUIRE_EXTRAS=1 but {message}", pytrace=False)
    pytest.skip(message, allow_module_level=True)


def require_module(name: str, *, extra: str) -> ModuleType:
    """Import ``name``, or skip (fail under SR_REQUIRE_EXTRAS=1) naming the extra that brings it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        _missing(name, f"pip install -e '.[{extra}]'")
        raise  # unreachable: skip/fail raise


def require_executable(name: str, *, apt: str) -> str:
    """The path of executable ``name``, or skip (fail under SR_REQUIRE_EXTRAS=1) naming its package."""
    path = shutil.which(name)
    if path is None:
        _missing(name, f"apt-get install {apt}")
        raise AssertionError  # unreachable
    return path
