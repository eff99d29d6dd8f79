"""runtime.core.jcs writes exactly rfc8785's bytes: on the frozen files and on every edge it routes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rfc8785

from compiler.yaml_loader import load_yaml_text
from runtime.core.jcs import dumps

REPO = Path(__file__).resolve().parents[1]

EDGES = [
    None,
    True,
    [],
    {},
    {"b": 1, "a": [1, 2, {"d": None, "c": False}]},
    'quote " backslash \\ controls \b\f\n\r\t \x00 \x1f \x7f \u2028 é 漢 \U0001f600',
    {"é": 1, "e": 2, "\u00ff": 3, "~": 4},
    {"\ue000": 1, "\U0001f600": 2, "a": 3},  # UTF-16 order differs from code-point order here
    {"\ufb33": 1, "\U00010000": 2},
    2**53 - 1,
    -(2**53) + 1,
    [0.25, -1.5, 0.1, 123456.789, 1e-7, 1e21, 1e16, 5e-324, 1.7976931348623157e308],
    [1.0, -0.0, 0.0, 64.0, 100.0, 9007199254740991.0, 9007199254740992.0, 1e15],
    ("a", "tuple"),
]


@pytest.mark.parametrize("value", EDGES, ids=range(len(EDGES)))
def test_same_bytes_as_rfc8785(value: object) -> None:
    assert dumps(value) == rfc8785.dumps(value)


@pytest.mark.parametrize(
    "value", [2**53, -(2**53), float("nan"), float("inf"), "\ud800", {"k": "\udfff"}, {1: "x"}, {"s": {1}}]
)
def test_refuses_what_rfc8785_refuses(value: object) -> None:
    with pytest.raises(rfc8785.CanonicalizationError):
        rfc8785.dumps(value)
    with pytest.raises(rfc8785.CanonicalizationError):
        dumps(value)


def test_frozen_files_digest_the_same() -> None:
    files = sorted((REPO / "spec").rglob("*.yaml")) + sorted((REPO / "catalogs").rglob("*.json"))
    assert len(files) > 20
    for path in files:
        text = path.read_text(encoding="utf-8")
        data = load_yaml_text(text, file=path.name).data if path.suffix == ".yaml" else json.loads(text)
        assert dumps(data) == rfc8785.dumps(data), path
