"""Clean schema checks are remembered by content; a problem is found, at its position, every time.

compiler/schema_validation.py remembers only "no problems", keyed by the pickled data, so values that
compare equal in Python but validate differently (1, 1.0, True, "1") never share an outcome.
"""

from __future__ import annotations

from typing import Any

import pytest

from compiler import schema_validation as sv
from compiler.json_loader import load_json_text
from compiler.yaml_loader import load_yaml_text

SCHEMA: dict[str, Any] = {
    "$schema": sv.DRAFT_2020_12,
    "type": "object",
    "properties": {"n": {"type": "integer"}, "flag": {"type": "boolean"}},
    "additionalProperties": False,
}


@pytest.fixture(autouse=True)
def fresh_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sv, "_CLEAN", type(sv._CLEAN)())


def _count_validations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = sv._violations

    def counted(document: Any, schema: Any) -> Any:
        calls.append(1)
        return real(document, schema)

    monkeypatch.setattr(sv, "_violations", counted)
    return calls


def test_a_clean_document_is_validated_once_and_a_bad_one_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_validations(monkeypatch)
    good = load_yaml_text("n: 1\nflag: true\n", file="good.yaml")
    assert sv.validate_document(good, SCHEMA) == [] and sv.validate_document(good, SCHEMA) == []
    assert len(calls) == 1
    bad = load_yaml_text("n: 1\nflag: true\nextra: 2\n", file="bad.yaml")
    first, second = sv.validate_document(bad, SCHEMA), sv.validate_document(bad, SCHEMA)
    assert len(calls) == 3
    assert [str(i) for i in first] == [str(i) for i in second]
    assert str(first[0]).startswith("bad.yaml:3:1: extra: unknown key")


@pytest.mark.parametrize("text", ["n: 1.5\n", "n: true\n", "n: '1'\n", "flag: 1\n"])
def test_values_equal_in_python_never_share_a_clean_outcome(text: str) -> None:
    assert sv.validate_document(load_yaml_text("n: 1\nflag: true\n", file="a.yaml"), SCHEMA) == []
    assert sv.validate_document(load_yaml_text(text, file="b.yaml"), SCHEMA) != []


def test_the_meta_schema_check_is_remembered_only_when_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = load_json_text(_json(SCHEMA), file="s.json")
    assert sv.check_schema(schema) == []
    assert len(sv._CLEAN) == 1
    broken = load_json_text(_json({**SCHEMA, "type": "objet"}), file="t.json")
    assert sv.check_schema(broken) and sv.check_schema(broken)
    assert len(sv._CLEAN) == 1


def test_the_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sv, "_CLEAN_MAX", 3)
    for n in range(5):
        assert sv.validate_document(load_yaml_text(f"n: {n}\n", file="x.yaml"), SCHEMA) == []
    assert len(sv._CLEAN) == 3


def _json(data: Any) -> str:
    import json

    return json.dumps(data)
