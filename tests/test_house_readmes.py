"""A short README per package (issue #31, "The house"): every package of runtime/, compiler/ and
schemarouter/ has one, saying what it does, in what order, and what it must never do."""

from __future__ import annotations

import re
from pathlib import Path

from spec_support import REPO

PACKAGES = ("runtime", "compiler", "schemarouter")
# Each README names what the package must never do under a heading or a lead-in with "never".
NEVER = re.compile(r"^(#+ .*never|must never|never:|\*\*never)", re.IGNORECASE | re.MULTILINE)


def packages_without_readme(root: Path) -> list[str]:
    """The packages (folders holding __init__.py) under ``root``'s project folders with no README.md."""
    return sorted(
        init.parent.relative_to(root).as_posix()
        for package in PACKAGES
        for init in (root / package).rglob("__init__.py")
        if not (init.parent / "README.md").is_file()
    )


def test_every_package_has_a_readme() -> None:
    assert packages_without_readme(REPO) == []


def test_every_readme_says_what_its_package_must_never_do() -> None:
    silent = [
        path.relative_to(REPO).as_posix()
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("README.md"))
        if not NEVER.search(path.read_text(encoding="utf-8"))
    ]
    assert silent == []


def test_a_package_without_a_readme_is_found(tmp_path: Path) -> None:
    (tmp_path / "runtime" / "thing").mkdir(parents=True)
    (tmp_path / "runtime" / "thing" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "runtime" / "README.md").write_text("# runtime\n", encoding="utf-8")
    (tmp_path / "runtime" / "__init__.py").write_text("", encoding="utf-8")
    assert packages_without_readme(tmp_path) == ["runtime/thing"]
