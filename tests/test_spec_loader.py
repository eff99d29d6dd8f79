"""The line-aware YAML loader: plain data only, positions kept, every problem recorded."""

from __future__ import annotations

from compiler.issues import Position
from compiler.json_loader import load_json_text
from compiler.yaml_loader import load_yaml_text


def _messages(text: str) -> list[str]:
    return [str(issue) for issue in load_yaml_text(text, file="f.yaml").issues]


def test_positions_of_keys_and_values_are_one_based() -> None:
    loaded = load_yaml_text("a: 1\nb:\n  - x: 2\n    y: [3, 4]\n", file="f.yaml")
    assert loaded.data == {"a": 1, "b": [{"x": 2, "y": [3, 4]}]}
    assert loaded.key_positions[("b", 0, "y")] == Position(4, 5)
    assert loaded.value_positions[("b", 0, "y")] == Position(4, 8)
    assert loaded.value_positions[("b", 0, "y", 1)] == Position(4, 12)
    # A path that does not exist falls back to the closest ancestor's key.
    assert loaded.position(("b", 0, "missing")) == Position(3, 5)


def test_duplicate_key_is_reported_and_loading_continues() -> None:
    loaded = load_yaml_text("a: 1\nb: 2\na: 3\nc: 4\n", file="f.yaml")
    assert loaded.data == {"a": 1, "b": 2, "c": 4}
    assert [str(i) for i in loaded.issues] == [
        "f.yaml:3:1: a: duplicate key 'a' (first at line 1); this occurrence is ignored"
    ]


def test_yaml_1_2_core_scalars() -> None:
    loaded = load_yaml_text(
        "yes_: yes\nno_: no\non_: on\nt: true\nd: 2026-09-29\noct: 010\nhex: 0x1F\nf: 1.5e3\nn: ~\nq: '1'\n",
        file="f.yaml",
    )
    assert loaded.issues == []
    assert loaded.data == {
        "yes_": "yes",
        "no_": "no",
        "on_": "on",
        "t": True,
        "d": "2026-09-29",
        "oct": 10,
        "hex": 31,
        "f": 1500.0,
        "n": None,
        "q": "1",
    }


def test_python_tags_are_rejected() -> None:
    assert _messages("a: !!python/object:os.system {}\n") == [
        "f.yaml:1:4: a: tag 'tag:yaml.org,2002:python/object:os.system' is not plain data"
    ]
    assert _messages("a: !!python/name:os.system ''\n") == [
        "f.yaml:1:4: a: tag 'tag:yaml.org,2002:python/name:os.system' is not plain data"
    ]
    assert _messages("a: !!binary aGVsbG8=\n") == [
        "f.yaml:1:4: a: tag 'tag:yaml.org,2002:binary' is not plain data"
    ]
    assert _messages("a: !custom x\n") == ["f.yaml:1:4: a: tag '!custom' is not plain data"]


def test_anchors_aliases_and_merge_keys_are_rejected() -> None:
    messages = _messages("base: &b {k: 1}\nother:\n  <<: *b\n")
    assert (
        "f.yaml:1:7: base: anchor &b: anchors and aliases are not allowed; write it out"
        " (1 more anchors or aliases in this file)" in messages
    )
    assert _messages("a: [*b]\n") == [
        "f.yaml:1:5: a[0]: alias *b: anchors and aliases are not allowed; write it out"
    ]
    assert "f.yaml:3:3: other: merge keys (<<) are not allowed; write the mapping out" in messages


def test_non_json_values_are_rejected() -> None:
    assert _messages("a: .inf\n") == ["f.yaml:1:4: a: .inf is not plain data (JSON has no infinities or NaN)"]
    assert _messages("? [1, 2]\n: x\n") == ["f.yaml:1:3: key 'SequenceNode' is not a string; quote it"]
    assert _messages("1: x\n") == ["f.yaml:1:1: key '1' is not a string; quote it"]


def test_syntax_error_points_at_the_problem() -> None:
    loaded = load_yaml_text("a: 1\nb: [1, 2\nc: 3\n", file="f.yaml")
    assert loaded.data is None
    assert len(loaded.issues) == 1
    assert str(loaded.issues[0]).startswith("f.yaml:3:2: not valid YAML:")


def test_multiple_documents_are_rejected() -> None:
    assert _messages("a: 1\n---\nb: 2\n")[0].startswith(
        "f.yaml:2:1: not valid YAML: expected a single document"
    )


def test_json_duplicates_and_positions() -> None:
    loaded = load_json_text('{\n  "a": 1,\n  "a": 2\n}\n', file="s.json")
    assert [str(i) for i in loaded.issues] == [
        "s.json:3:3: a: duplicate key 'a' (first at line 2); this occurrence is ignored"
    ]
    ok = load_json_text('{\n  "a": {"b": [1, 2]}\n}\n', file="s.json")
    assert ok.data == {"a": {"b": [1, 2]}} and ok.position(("a", "b")) == Position(2, 14)
    bad = load_json_text('{"a": NaN}', file="s.json")
    assert [str(i) for i in bad.issues] == ["s.json:1:1: not valid JSON: NaN is not plain JSON"]
    broken = load_json_text('{"a": 1,}', file="s.json")
    assert str(broken.issues[0]).startswith("s.json:1:9: not valid JSON:")
