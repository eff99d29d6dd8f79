"""The distribution's packages are found, never listed: schemarouter, compiler and runtime (ARCHITECTURE.md,
"Import names"), each imported from this checkout."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest
from spec_support import REPO

TOP_LEVEL = ("schemarouter", "compiler", "runtime")


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_packages_are_found_not_listed() -> None:
    setuptools = _setuptools()
    assert "package-dir" not in setuptools and not isinstance(setuptools["packages"], list)
    assert sorted(setuptools["packages"]["find"]["include"]) == sorted(f"{top}*" for top in TOP_LEVEL)


def test_every_package_directory_is_a_package() -> None:
    """A folder of Python modules without __init__.py would not be found (and would not install)."""
    missing = sorted(
        str(folder.relative_to(REPO))
        for top in TOP_LEVEL
        for folder in [REPO / top, *(p for p in (REPO / top).rglob("*") if p.is_dir())]
        if "__pycache__" not in folder.parts
        and any(folder.glob("*.py"))
        and not (folder / "__init__.py").is_file()
    )
    assert missing == [], f"add an __init__.py to: {missing}"


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_top_level_packages_import_from_this_checkout(tmp_path, name: str) -> None:
    """The generic names compiler and runtime are this project's, not another distribution's."""
    code = f"import {name}, pathlib; print(pathlib.Path({name}.__file__).resolve().parent.parent)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(REPO.resolve())
