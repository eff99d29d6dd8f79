"""libyaml reads every document exactly as the pure-Python reading does: data, positions and problems.

The loader takes libyaml's reading only for text with nothing to report; everything else is read
again by the pure-Python parser. These tests compare both readings, on every YAML file of the project
and on inputs that exercise the hand-over (tags, anchors, depth, bad characters, non-ASCII columns).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.yaml_loader import LoadedDocument, load_yaml_text
from runtime.documents import yaml_text as yaml_loader

REPO = Path(__file__).resolve().parents[1]

CRAFTED = [
    "a: 1\nb: [1, 2, {c: d}]\n",
    "é: ünï\n  \nkey: 'q'\nnext: \"漢字 \\u00e9\"\nlast: |\n  block\n  text\n",
    "x: &a 1\ny: *a\n",
    "x: !!str 1\n",
    "x: !custom 1\n",
    "a: 1\na: 2\n",
    "? [1, 2]\n: v\n",
    "<<: {a: 1}\n",
    "deep: " + "[" * 70 + "]" * 70 + "\n",
    "deep:\n" + "- " * 70 + "x\n",
    "bad: \x07\n",
    "tab:\tvalue\n",
    "a: b: c\n",
    "x: [1, 2\n",
    "n: 0x1F\no: 0o17\nf: 1.5e3\ninf: .inf\nnul: ~\nyes: yes\nbig: " + "9" * 5000 + "\n",
    's: "\\ud800"\n',
    "\ufeffa: 1\n",
    "a: 1\r\nb:\r\n  - 2\r\n",
    "",
    "# only a comment\n",
    "--- 1\n--- 2\n",
    "- a\n- b: [x, {y: z}]\n  c: 'd'\n",
]


def _both(text: str, monkeypatch: pytest.MonkeyPatch, **options: bool) -> tuple[LoadedDocument, ...]:
    yaml_loader._READ.clear()
    fast = load_yaml_text(text, file="f.yaml", **options)
    yaml_loader._READ.clear()
    with monkeypatch.context() as patch:
        patch.setattr(yaml_loader, "_CParser", None)
        pure = load_yaml_text(text, file="f.yaml", **options)
    yaml_loader._READ.clear()
    return fast, pure


def _same(fast: LoadedDocument, pure: LoadedDocument) -> None:
    assert fast.data == pure.data
    assert [str(i) for i in fast.issues] == [str(i) for i in pure.issues]
    assert fast.value_positions == pure.value_positions
    assert fast.key_positions == pure.key_positions


def test_libyaml_is_present() -> None:
    # PyYAML's wheels carry libyaml; without it every document takes the pure-Python reading.
    assert yaml_loader._CParser is not None


@pytest.mark.parametrize("text", CRAFTED, ids=range(len(CRAFTED)))
def test_crafted_inputs_read_the_same(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _same(*_both(text, monkeypatch))
    _same(*_both(text, monkeypatch, yaml11_booleans=True))


def test_every_project_yaml_file_reads_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    files = [p for p in sorted(REPO.rglob("*.yaml")) if ".venv" not in p.parts and "build" not in p.parts]
    assert len(files) > 20
    for path in files:
        fast, pure = _both(path.read_text(encoding="utf-8"), monkeypatch)
        _same(fast, pure)


def test_a_reread_is_a_fresh_copy() -> None:
    first = load_yaml_text("a: [1, {b: 2}]\n", file="one.yaml")
    first.data["a"][1]["b"] = 3
    again = load_yaml_text("a: [1, {b: 2}]\n", file="two.yaml")
    assert again.data == {"a": [1, {"b": 2}]}
    bad = load_yaml_text("a: 1\na: 2\n", file="three.yaml")
    assert load_yaml_text("a: 1\na: 2\n", file="four.yaml").issues[0].file == "four.yaml"
    assert bad.issues[0].file == "three.yaml"
