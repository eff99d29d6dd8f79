"""One model per concept: every frozen pydantic model inherits runtime.core.frozen_model.FrozenModel,
so the frozen config is spelled once (issue #31, "Every frozen model inherits FrozenModel")."""

from __future__ import annotations

import ast

import pydantic
import pytest
from spec_support import REPO

from runtime.catalog.model import CatalogSource

BASE = REPO / "runtime" / "core" / "frozen_model.py"


def spelled_frozen_configs(source: str, name: str) -> list[str]:
    """``name:line Class`` for each class body assigning ``model_config = ConfigDict(frozen=True, ...)``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt in node.body:
            if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)):
                continue
            targets = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
            frozen = any(
                k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value is True
                for k in stmt.value.keywords
            )
            if targets == ["model_config"] and frozen:
                found.append(f"{name}:{stmt.lineno} {node.name}")
    return found


def test_no_model_spells_the_frozen_config_but_the_base() -> None:
    spelled = []
    for package in ("runtime", "compiler", "schemarouter"):
        for path in sorted((REPO / package).rglob("*.py")):
            if path != BASE:
                spelled += spelled_frozen_configs(path.read_text(), str(path.relative_to(REPO)))
    assert spelled == [], "inherit FrozenModel (runtime/core/frozen_model.py) instead:\n" + "\n".join(spelled)
    assert spelled_frozen_configs(BASE.read_text(), "base") != [], "the base spells it, once"


def test_the_check_finds_a_model_that_spells_it_again() -> None:
    source = (
        "from pydantic import BaseModel, ConfigDict\n"
        "class Late(BaseModel):\n"
        "    model_config = ConfigDict(extra='forbid', frozen=True)\n"
        "class Fine(BaseModel):\n"
        "    model_config = ConfigDict(extra='allow')\n"
    )
    assert spelled_frozen_configs(source, "x.py") == ["x.py:3 Late"]


def test_frozen_models_refuse_changes_and_unknown_keys() -> None:
    source = CatalogSource(format="mcp", file="tools.json", sha256="sha256:" + "0" * 64)
    with pytest.raises(pydantic.ValidationError):
        source.file = "other.json"  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError, match="Extra inputs are not permitted"):
        CatalogSource.model_validate({**source.model_dump(), "surprise": 1})
