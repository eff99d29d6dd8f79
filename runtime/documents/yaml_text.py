"""A line-aware YAML loader for spec files: plain JSON-like data, every node's position, every problem.

PyYAML composes the document into nodes (which carry start marks); this module walks the nodes itself
instead of using a constructor, so that it can

* keep the 1-based ``line:col`` of every key and value, addressed by its path
  (``("conditions", 2, "refresh", "max_per_episode")``);
* record a duplicate key as a problem and keep going (the first occurrence wins), so one run reports
  every problem of a file;
* reject everything that is not plain data: explicit tags, core ones included (``!!python/object``,
  ``!!binary``, but also ``!!bool yes`` or ``!!float abc``), anchors and aliases (a frozen spec must
  read literally, and aliases allow exponential expansion), merge keys, non-string keys,
  ``.inf``/``.nan`` (not JSON), lone UTF-16 surrogates and integers too long to convert;
* never raise for bad text: a control character, nesting deeper than ``MAX_DEPTH`` or a syntax
  error is one problem at its ``line:col``.

Before anything is composed, the event stream is scanned once: tags, anchors and aliases are
recorded with their key path, and nesting is measured. A document nested too deep or not valid YAML
is not composed at all; an alias is composed as a null placeholder, so an alias bomb costs nothing
and the rest of the file is still checked.

Where PyYAML was built with libyaml, the C parser reads the text first: when its event scan finds
nothing to report, the C composer builds the nodes (the scan has shown there are no tags, anchors or
aliases and that the nesting is within ``MAX_DEPTH``) and the same walk turns them into data. Text
that libyaml refuses, or that has anything to report at all, is read again by the pure-Python parser,
so every message and position of a problem is the one that parser gives (tests/test_yaml_libyaml.py
checks that both readings agree).

Scalars resolve by the YAML 1.2 core schema, not PyYAML's YAML 1.1 default: only ``true``/``false``
are booleans (``yes``, ``no``, ``on``, ``off`` stay strings), dates stay strings, and ``010`` is ten.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.events import (
    AliasEvent,
    CollectionStartEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    NodeEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

from runtime.core.safe_json import MAX_DEPTH, MAX_INT_DIGITS, has_surrogate, line_col
from runtime.documents.issues import LOAD_CODE, Position, SpecIssue

_CParser: Any
try:  # PyYAML built with libyaml
    from yaml._yaml import CParser as _CParser
except ImportError:  # pragma: no cover - a PyYAML without libyaml
    _CParser = None

PathKey = tuple[str | int, ...]

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
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


class _EventLoader(Reader, Scanner, Parser):
    """Parses to events only: nothing is composed, so nothing is shared or expanded. (The Parser keeps
    its own stack of states, so no nesting depth can exhaust Python's recursion limit here.)"""

    def __init__(self, stream: str) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)


if _CParser is not None:

    class _CoreSchemaCParser(_CParser, _CoreSchemaResolver):  # type: ignore[misc]
        """libyaml's parser and composer, resolving scalars by the YAML 1.2 core schema."""

        def __init__(self, stream: str) -> None:
            _CParser.__init__(self, stream)
            _CoreSchemaResolver.__init__(self)


class _PlainComposer(Composer, _CoreSchemaResolver):
    """Composes nodes from the events the scan recorded (the text is parsed once): an alias becomes a
    null placeholder (never the anchored node), and an explicit tag is dropped so the scalar resolves as
    if untagged (the scan has already reported the tag)."""

    def __init__(self, events: list[Event]) -> None:
        Composer.__init__(self)
        _CoreSchemaResolver.__init__(self)
        self._events = events
        self._next = 0

    def check_event(self, *choices: Any) -> bool:
        if self._next >= len(self._events):
            return False
        return not choices or isinstance(self._events[self._next], choices)

    def peek_event(self) -> Event:
        return self._events[self._next]

    def get_event(self) -> Event:
        event = self._events[self._next]
        self._next += 1
        return event

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event: Any = self.peek_event()
        if isinstance(event, AliasEvent):
            self.get_event()
            start: Any = event.start_mark
            return ScalarNode(_NULL, "", start, start)
        if isinstance(event, NodeEvent):
            _as_untagged(event)
        return super().compose_node(parent, index)


def _as_untagged(event: Any) -> None:
    """Drop an event's anchor and explicit tag so it composes as plain, untagged data."""
    event.anchor = None
    if getattr(event, "tag", None) is not None:
        event.tag = None
        if isinstance(event, ScalarEvent):
            event.implicit = (event.style is None, event.style is not None)


class _Frame:
    """One open mapping or sequence during the event scan."""

    __slots__ = ("expect_key", "index", "is_map", "key", "path")

    def __init__(self, path: PathKey, *, is_map: bool) -> None:
        self.path = path
        self.is_map = is_map
        self.expect_key = True
        self.key: str | int = "?"
        self.index = 0


def _scan_events(loader: _EventLoader, file: str, events: list[Event]) -> tuple[list[SpecIssue], bool]:
    """Records the events; reports tags, anchors and aliases (with key paths); says whether the
    document may be composed."""
    issues: list[SpecIssue] = []
    sharing: list[SpecIssue] = []
    frames: list[_Frame] = []

    def node_path() -> PathKey:
        if not frames:
            return ()
        top = frames[-1]
        if top.is_map:
            return top.path if top.expect_key else (*top.path, top.key)
        return (*top.path, top.index)

    def node_done(event: Event | None) -> None:
        if not frames:
            return
        top = frames[-1]
        if not top.is_map:
            top.index += 1
        elif top.expect_key:
            top.key = event.value if isinstance(event, ScalarEvent) else "?"
            top.expect_key = False
        else:
            top.expect_key = True

    while loader.check_event():
        event: Event = loader.get_event()  # type: ignore[no-untyped-call]
        events.append(event)
        if isinstance(event, NodeEvent):
            path = node_path()
            where = _position(event.start_mark)
            if isinstance(event, AliasEvent):
                sharing.append(SpecIssue(file, where, path, f"alias *{event.anchor}: {_NO_SHARING}"))
            elif event.anchor is not None:
                sharing.append(SpecIssue(file, where, path, f"anchor &{event.anchor}: {_NO_SHARING}"))
            tag = getattr(event, "tag", None)
            if tag is not None:
                issues.append(SpecIssue(file, where, path, f"tag {tag!r} is not plain data"))
            if isinstance(event, CollectionStartEvent):
                if len(frames) >= MAX_DEPTH:
                    issues.append(SpecIssue(file, where, path[:1], f"nested deeper than {MAX_DEPTH} levels"))
                    return [*_first_of(sharing), *issues], False
                frames.append(_Frame(path, is_map=isinstance(event, MappingStartEvent)))
            else:
                node_done(event)
        elif isinstance(event, MappingEndEvent | SequenceEndEvent):
            frames.pop()
            node_done(None)
    return [*_first_of(sharing), *issues], True


def _first_of(sharing: list[SpecIssue]) -> list[SpecIssue]:
    """The first anchor or alias of a file, saying how many more there are (an alias bomb has thousands)."""
    if len(sharing) <= 1:
        return sharing
    first = sharing[0]
    more = f" ({len(sharing) - 1} more anchors or aliases in this file)"
    return [SpecIssue(first.file, first.position, first.path, first.message + more)]


_NO_SHARING = "anchors and aliases are not allowed; write it out"


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

    def issue(self, path: PathKey, message: str, *, at_key: bool = False, code: str = LOAD_CODE) -> SpecIssue:
        """A problem at ``path`` of this file, with its stable code (``compiler/problem_codes.py``)."""
        return SpecIssue(self.file, self.position(path, at_key=at_key), path, message, code)


def _marked_issue(file: str, err: yaml.MarkedYAMLError) -> SpecIssue:
    mark = err.problem_mark or err.context_mark
    where = _position(mark) if mark is not None else Position(1, 1)
    problem = " ".join(p for p in (err.context, err.problem) if p)
    return SpecIssue(file, where, (), f"not valid YAML: {problem}")


def _position(mark: Any) -> Position:
    return Position(mark.line + 1, mark.column + 1)


# YAML 1.1's boolean words (PyYAML's default resolver). Only ``yaml11_booleans`` reads them as booleans.
_YAML11_BOOL = re.compile(r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$")
_YAML11_TRUE = frozenset({"y", "Y", "yes", "Yes", "YES", "on", "On", "ON"})


# The documents read last, by (text, reading): one command reads a spec file more than once (to
# validate it and to digest it), and gets the same document each time, as a fresh copy named by the
# ``file`` it asked for.
_READ: dict[tuple[str, bool], LoadedDocument] = {}
_READ_LIMIT = 64
_READ_MAX_TEXT = 4_000_000


def load_yaml_text(text: str, *, file: str, yaml11_booleans: bool = False) -> LoadedDocument:
    """Load one YAML document from ``text``; ``file`` names it in positions and messages. Never raises
    for bad text: every problem is in ``issues``.

    ``yaml11_booleans`` reads the plain (unquoted) words yes/no/on/off/y/n as booleans, as YAML 1.1 and
    PyYAML's default loader do. Only generation of an experiment whose generator.yaml keeps 0.14's
    reading uses it (see compiler/generate/README.md, "Known defect of 0.14"); everything else reads
    YAML 1.2 core scalars.
    """
    key = (text, yaml11_booleans)
    read = _READ.get(key)
    if read is None:
        read = _load_text(text, file=file, yaml11_booleans=yaml11_booleans)
        if len(text) <= _READ_MAX_TEXT:
            if len(_READ) >= _READ_LIMIT:
                del _READ[next(iter(_READ))]
            _READ[key] = read
    return LoadedDocument(
        file=file,
        data=_copy_plain(read.data),
        value_positions=dict(read.value_positions),
        key_positions=dict(read.key_positions),
        issues=[issue if issue.file == file else replace(issue, file=file) for issue in read.issues],
    )


def _copy_plain(value: Any) -> Any:
    if type(value) is dict:
        return {key: _copy_plain(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy_plain(item) for item in value]
    return value  # str, int, float, bool, None: immutable


def _load_text(text: str, *, file: str, yaml11_booleans: bool) -> LoadedDocument:
    fast = _load_with_libyaml(text, file=file, yaml11_booleans=yaml11_booleans)
    if fast is not None:
        return fast
    loaded = LoadedDocument(file=file, data=None)
    scanner: _EventLoader | None = None
    events: list[Event] = []
    try:
        scanner = _EventLoader(text)
        scan_issues, composable = _scan_events(scanner, file, events)
    except yaml.MarkedYAMLError as err:
        loaded.issues.append(_marked_issue(file, err))
        return loaded
    except yaml.reader.ReaderError as err:
        line, col = line_col(text, err.position)
        shown = f"#x{err.character:04x}" if isinstance(err.character, int) else repr(err.character)
        loaded.issues.append(
            SpecIssue(
                file, Position(line, col), (), f"not valid YAML: special character {shown} is not allowed"
            )
        )
        return loaded
    except yaml.YAMLError as err:
        loaded.issues.append(SpecIssue(file, Position(1, 1), (), f"not valid YAML: {err}"))
        return loaded
    finally:
        if scanner is not None:
            scanner.dispose()
    loaded.issues.extend(scan_issues)
    if not composable:
        return loaded
    composer = _PlainComposer(events)
    try:
        node = composer.get_single_node()
    except yaml.MarkedYAMLError as err:
        loaded.issues.append(_marked_issue(file, err))
        return loaded
    if node is not None:
        loaded.data = _Walker(loaded, yaml11_booleans=yaml11_booleans).value(node, ())
    return loaded


def _plain_and_shallow(parser: Any) -> bool:
    """True when the event stream has no tag, anchor or alias and nests at most MAX_DEPTH deep: then
    ``_scan_events`` would report nothing, and the recursive C composer stays shallow."""
    depth = 0
    while parser.check_event():
        event = parser.get_event()
        kind = type(event)
        if kind is ScalarEvent:
            if event.anchor is not None or event.tag is not None:
                return False
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if event.anchor is not None or event.tag is not None:
                return False
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            depth -= 1
        elif kind is AliasEvent:
            return False
    return True


def _load_with_libyaml(text: str, *, file: str, yaml11_booleans: bool) -> LoadedDocument | None:
    """The document as libyaml reads it, or None when libyaml is absent, refuses the text, or anything
    in it is a problem (the pure-Python reading then reports it)."""
    if _CParser is None or "\t" in text:  # libyaml accepts tabs where the pure-Python scanner does not
        return None
    try:
        scanner = _CParser(text)
        try:
            plain = _plain_and_shallow(scanner)
        finally:
            scanner.dispose()
        if not plain:
            return None
        composer = _CoreSchemaCParser(text)
        try:
            node = composer.get_single_node()
        finally:
            composer.dispose()
    except Exception:  # libyaml's own error (or one of its encoding): the pure-Python parser names it
        return None
    loaded = LoadedDocument(file=file, data=None)
    if node is not None:
        loaded.data = _Walker(loaded, yaml11_booleans=yaml11_booleans).value(node, ())
    return None if loaded.issues else loaded


class _Walker:
    """Turns composed nodes into plain data, recording positions and problems in ``loaded``.

    A plain scalar's style is None from the pure-Python parser and "" from libyaml: both are falsy."""

    def __init__(self, loaded: LoadedDocument, *, yaml11_booleans: bool = False) -> None:
        self.loaded = loaded
        self.yaml11_booleans = yaml11_booleans

    def problem(self, node: Node, path: PathKey, message: str) -> None:
        self.loaded.issues.append(SpecIssue(self.loaded.file, _position(node.start_mark), path, message))

    def value(self, node: Node, path: PathKey) -> Any:
        self.loaded.value_positions.setdefault(path, _position(node.start_mark))
        if isinstance(node, MappingNode):
            return self.mapping(node, path)
        if isinstance(node, SequenceNode):
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
            if key == "<<" and not key_node.style:
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
        if tag not in _PLAIN_SCALAR_TAGS:  # cannot happen after the scan; kept as a second line of defence
            self.problem(node, path, f"tag {tag!r} is not plain data")
            return text
        if tag == _STR:
            if has_surrogate(text):
                self.problem(node, path, "a lone UTF-16 surrogate is not Unicode text")
            if self.yaml11_booleans and not node.style and _YAML11_BOOL.match(text):
                return text in _YAML11_TRUE
            return text
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return text.lower() == "true"
        if tag == _INT:
            digits = len(text.lstrip("+-"))
            if digits > MAX_INT_DIGITS:
                self.problem(
                    node, path, f"an integer of {digits} digits is too long (at most {MAX_INT_DIGITS})"
                )
                return text
            try:
                return int(text, 0) if text[:2] in ("0o", "0x") else int(text, 10)
            except ValueError:
                self.problem(node, path, f"{text!r} is not an integer")
                return text
        if text.lstrip("+-").lower() in (".inf", ".nan"):
            self.problem(node, path, f"{text} is not plain data (JSON has no infinities or NaN)")
            return text
        try:
            number = float(text)
        except ValueError:
            self.problem(node, path, f"{text[:40]!r} is not a number")
            return text
        if math.isinf(number):
            self.problem(node, path, f"{text} is out of range for a JSON number")
            return text
        return number
