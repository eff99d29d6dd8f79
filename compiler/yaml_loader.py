"""A line-aware YAML loader for spec files: plain JSON-like data, every node's position, every problem.

PyYAML composes the document into nodes (which carry start marks); this module walks the nodes itself
instead of using a constructor, so that it can

* keep the 1-based ``line:col`` of every key and value, addressed by its path
  (``("conditions", 2, "refresh", "max_per_episode")``);
* record a duplicate key as a problem and keep going (the first occurrence wins), so one run reports
  every problem of a file;
* reject everything that is not plain data: explicit tags (``!!python/object``, ``!!timestamp``,
  ``!!binary``, ``!!set`` ...), anchors and aliases (a frozen spec must read literally, and aliases
  allow exponential expansion), merge keys, non-string keys, and ``.inf``/``.nan`` (not JSON).

Scalars resolve by the YAML 1.2 core schema, not PyYAML's YAML 1.1 default: only ``true``/``false``
are booleans (``yes``, ``no``, ``on``, ``off`` stay strings), dates stay strings, and ``010`` is ten.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

from schemarouter.compiler.issues import Position, SpecIssue

PathKey = tuple[str | int, ...]

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_PLAIN_SCALAR_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL}


class _CoreSchemaResolver(BaseResolver):
    """Implicit scalar resolution by the YAML 1.2 core schema (filled below; PyYAML copies the
    base class's empty table on the first add_implicit_resolver)."""


for _tag, _pattern, _first in (
    (_BOOL, r"^(?:true|True|TRUE|false|False|FALSE)\Z", "tTfF"),
    (_INT, r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z", "-+0123456789"),
    (
        _FLOAT,
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z",
        "-+0123456789.",
    ),
    (_NULL, r"^(?:~|null|Null|NULL|)\Z", ["~", "n", "N", ""]),
):
    _CoreSchemaResolver.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))


class _MarkingLoader(Reader, Scanner, Parser, Composer, _CoreSchemaResolver):
    """Composes nodes only; records anchors and aliases instead of silently sharing nodes."""

    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        _CoreSchemaResolver.__init__(self)
        self.sharing_marks: list[tuple[str, Any]] = []

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            self.sharing_marks.append((f"alias *{event.anchor}", event.start_mark))
        elif event.anchor is not None:
            self.sharing_marks.append((f"anchor &{event.anchor}", event.start_mark))
        return super().compose_node(parent, index)


@dataclass
class LoadedDocument:
    """The plain data of one YAML or JSON file, where each part of it was written, and what was wrong."""

    file: str
    data: Any
    value_positions: dict[PathKey, Position] = field(default_factory=dict)
    key_positions: dict[PathKey, Position] = field(default_factory=dict)
    issues: list[SpecIssue] = field(default_factory=list)

    def position(self, path: PathKey, *, at_key: bool = False) -> Position:
        """Where ``path`` was written; falls back to its closest existing ancestor, then to 1:1."""
        probe = tuple(path)
        while True:
            if at_key and probe in self.key_positions:
                return self.key_positions[probe]
            if probe in self.value_positions:
                return self.value_positions[probe]
            if not probe:
                return Position(1, 1)
            probe = probe[:-1]
            at_key = True

    def issue(self, path: PathKey, message: str, *, at_key: bool = False) -> SpecIssue:
        """A problem at ``path`` of this file."""
        return SpecIssue(self.file, self.position(path, at_key=at_key), path, message)


def _position(mark: Any) -> Position:
    return Position(mark.line + 1, mark.column + 1)


# YAML 1.1's boolean words (PyYAML's default resolver). Only ``yaml11_booleans`` reads them as booleans.
_YAML11_BOOL = re.compile(r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$")
_YAML11_TRUE = frozenset({"y", "Y", "yes", "Yes", "YES", "on", "On", "ON"})


def load_yaml_text(text: str, *, file: str, yaml11_booleans: bool = False) -> LoadedDocument:
    """Load one YAML document from ``text``; ``file`` names it in positions and messages.

    ``yaml11_booleans`` reads the plain (unquoted) words yes/no/on/off/y/n as booleans, as YAML 1.1 and
    PyYAML's default loader do. Only generation of an experiment whose generator.yaml keeps 0.14's
    reading uses it (see compiler/generate/README.md, "Known defect of 0.14"); everything else reads
    YAML 1.2 core scalars.
    """
    loaded = LoadedDocument(file=file, data=None)
    loader = _MarkingLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = _position(mark) if mark is not None else Position(1, 1)
        problem = " ".join(p for p in (err.context, err.problem) if p)
        loaded.issues.append(SpecIssue(file, where, (), f"not valid YAML: {problem}"))
        return loaded
    except yaml.YAMLError as err:  # a reader error (e.g. a control character) has no mark
        loaded.issues.append(SpecIssue(file, Position(1, 1), (), f"not valid YAML: {err}"))
        return loaded
    finally:
        loader.dispose()
    for what, mark in loader.sharing_marks:
        loaded.issues.append(
            SpecIssue(file, _position(mark), (), f"{what}: anchors and aliases are not allowed; write it out")
        )
    if node is not None:
        loaded.data = _Walker(loaded, yaml11_booleans=yaml11_booleans).value(node, ())
    return loaded


class _Walker:
    """Turns composed nodes into plain data, recording positions and problems in ``loaded``."""

    def __init__(self, loaded: LoadedDocument, *, yaml11_booleans: bool = False) -> None:
        self.loaded = loaded
        self.yaml11_booleans = yaml11_booleans

    def problem(self, node: Node, path: PathKey, message: str) -> None:
        self.loaded.issues.append(SpecIssue(self.loaded.file, _position(node.start_mark), path, message))

    def value(self, node: Node, path: PathKey) -> Any:
        self.loaded.value_positions.setdefault(path, _position(node.start_mark))
        if isinstance(node, MappingNode):
            if node.tag != _MAP:
                self.problem(node, path, f"tag {node.tag!r} is not plain data")
            return self.mapping(node, path)
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                self.problem(node, path, f"tag {node.tag!r} is not plain data")
            return [self.value(item, (*path, index)) for index, item in enumerate(node.value)]
        assert isinstance(node, ScalarNode)
        return self.scalar(node, path)

    def mapping(self, node: MappingNode, path: PathKey) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first_seen: dict[str, Position] = {}
        for key_node, value_node in node.value:
            key = self.scalar(key_node, path) if isinstance(key_node, ScalarNode) else None
            if not isinstance(key, str):
                shown = key_node.value if isinstance(key_node, ScalarNode) else type(key_node).__name__
                self.problem(key_node, path, f"key {shown!r} is not a string; quote it")
                continue
            if key == "<<" and key_node.style is None:
                self.problem(key_node, path, "merge keys (<<) are not allowed; write the mapping out")
                continue
            if key in result:
                first = first_seen[key]
                self.problem(
                    key_node,
                    (*path, key),
                    f"duplicate key {key!r} (first at line {first.line}); this occurrence is ignored",
                )
                continue
            first_seen[key] = _position(key_node.start_mark)
            self.loaded.key_positions[(*path, key)] = first_seen[key]
            result[key] = self.value(value_node, (*path, key))
        return result

    def scalar(self, node: ScalarNode, path: PathKey) -> Any:
        text = node.value
        tag = node.tag
        if tag not in _PLAIN_SCALAR_TAGS:
            self.problem(node, path, f"tag {tag!r} is not plain data")
            return text
        if tag == _STR:
            if self.yaml11_booleans and node.style is None and _YAML11_BOOL.match(text):
                return text in _YAML11_TRUE
            return text
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return text.lower() == "true"
        if tag == _INT:
            try:
                return int(text, 0) if text[:2] in ("0o", "0x") else int(text, 10)
            except ValueError:
                self.problem(node, path, f"{text!r} is not an integer")
                return text
        if text.lstrip("+-").lower() in (".inf", ".nan"):
            self.problem(node, path, f"{text} is not plain data (JSON has no infinities or NaN)")
            return text
        number = float(text)
        if math.isinf(number):
            self.problem(node, path, f"{text} is out of range for a JSON number")
            return text
        return number
