"""The distribution maps compiler/ and runtime/ under schemarouter and takes no generic top-level names."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest
from spec_support import REPO

MAPPED_DIRS = {
    "schemarouter": "schemarouter",
    "compiler": "schemarouter.compiler",
    "runtime": "schemarouter.runtime",
}


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_package_dirs_map_under_schemarouter() -> None:
    assert _setuptools()["package-dir"] == {
        "schemarouter": "schemarouter",
        "schemarouter.compiler": "compiler",
        "schemarouter.runtime": "runtime",
    }


def test_every_package_directory_is_listed() -> None:
    listed = set(_setuptools()["packages"])
    expected = set()
    for top, package in MAPPED_DIRS.items():
        for init in (REPO / top).rglob("__init__.py"):
            relative = init.parent.relative_to(REPO / top)
            if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
                continue
            expected.add(".".join([package, *relative.parts]))
    missing = sorted(expected - listed)
    assert not missing, f"add to pyproject.toml [tool.setuptools] packages: {missing}"
    stale = sorted(listed - expected)
    assert not stale, f"listed in pyproject.toml but no such package directory: {stale}"


@pytest.mark.parametrize("name", ["compiler", "runtime"])
def test_generic_top_level_names_are_not_importable(tmp_path, name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import {name}"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr


def test_mapped_packages_import_under_schemarouter(tmp_path) -> None:
    code = "import schemarouter.compiler, schemarouter.runtime.spec_model, schemarouter.cli.app"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
