"""The one bounded reading of a user's YAML or JSON document: importer sources, intents and pools files,
judged query files.

In order, each step's problem one ``file:line:col: key.path: message`` line that never echoes the
file's content (a value is shown at most ``SHOWN_CHARS`` characters, escaped):

1. the path must be a regular file (a device, a FIFO or a directory is refused before anything is
   read) of at most ``limits.DOCUMENT_BYTES`` bytes; no more than that is ever read;
2. the bytes must be UTF-8 (``safe_json.decode_utf8``: the position of the first bad byte);
3. the text is read by the spec loader (``yaml_text``: no tags, anchors or aliases, no merge keys, no
   duplicate keys, nesting at most ``limits.NESTING_DEPTH``, no control characters in the text), or,
   when it starts with ``{`` or ``[`` or only JSON is accepted, by ``json_text`` (``safe_json``'s
   limits, the same positions);
4. no string of the data (key or value) may hold a control character other than tab, line feed and
   carriage return: a YAML escape (``"\\a"``) or a JSON one (``"\\u0007"``) cannot smuggle one in.

What a caller checks next (a schema, a model) it reports with ``UserDocument.problem``, at the
position of the value it concerns.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from runtime.core import limits, safe_json
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONValue
from runtime.documents.issues import Position, SpecIssue
from runtime.documents.json_text import load_json_text
from runtime.documents.yaml_text import LoadedDocument, PathKey, load_yaml_text

SHOWN_CHARS = 60
MAX_LINES = 20
_ALLOWED_CONTROLS = frozenset("\t\n\r")
_IGNORED = "; this occurrence is ignored"


@dataclass(frozen=True)
class UserDocument:
    """One user document: how it is named in messages, its bytes' sha256 (hex), its data and positions."""

    shown: str
    sha256: str
    loaded: LoadedDocument

    @property
    def data(self) -> Any:
        return self.loaded.data

    def position(self, path: PathKey) -> Position:
        return self.loaded.position(path)

    def problem(self, path: PathKey, message: str) -> SpecIssue:
        """A problem at ``path`` of this document (at its closest known position)."""
        return SpecIssue(self.shown, self.loaded.position(path), path, one_line(message))

    def fail(self, path: PathKey, message: str) -> SchemaRouterError:
        return SchemaRouterError(str(self.problem(path, message)))


def shown(value: JSONValue, limit: int = SHOWN_CHARS) -> str:
    """``value`` as a message may show it: its ``repr`` (which escapes every character that does not
    print as itself: controls, invisible and bidirectional ones, line breaks), cut to ``limit``
    characters of the value."""
    text = value if isinstance(value, str) else str(value)
    return repr(text[:limit] + "...") if len(text) > limit else repr(text)


def one_line(text: str) -> str:
    """``text`` as one line: every run of whitespace (line breaks included) becomes one space."""
    return " ".join(text.split())


def read_user_bytes(path: Path, *, shown_as: str, what: str, max_bytes: int = limits.DOCUMENT_BYTES) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``max_bytes``), or one line saying why not."""
    try:
        info = os.stat(path)
    except OSError as err:
        raise SchemaRouterError(f"{shown_as}: cannot read the {what} ({err.strerror or err})") from None
    if not stat.S_ISREG(info.st_mode):
        raise SchemaRouterError(f"{shown_as}: the {what} is not a regular file")
    if info.st_size > max_bytes:
        raise SchemaRouterError(f"{shown_as}:1:1: {_too_big(info.st_size)}")
    try:
        with open(path, "rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as err:
        raise SchemaRouterError(f"{shown_as}: cannot read the {what} ({err.strerror or err})") from None
    if len(raw) > max_bytes:  # grew since it was measured
        raise SchemaRouterError(f"{shown_as}:1:1: {_too_big(len(raw))}")
    return raw


def _too_big(size: int) -> str:
    return limits.over_limit("bytes", size, "DOCUMENT_BYTES")


def decode_user_text(raw: bytes, *, shown_as: str) -> str:
    """UTF-8 text, or one line at the first byte that is not UTF-8."""
    try:
        return safe_json.decode_utf8(raw)
    except safe_json.JsonTextError as err:
        raise SchemaRouterError(f"{shown_as}:{err.line}:{err.column}: {err.message}") from None


def read_user_document(path: Path, *, shown_as: str, what: str, yaml_allowed: bool = True) -> UserDocument:
    """The document at ``path`` through the steps above; every problem at once (at most ``MAX_LINES``)."""
    raw = read_user_bytes(path, shown_as=shown_as, what=what)
    digest = hashlib.sha256(raw).hexdigest()
    text = decode_user_text(raw, shown_as=shown_as)
    if not yaml_allowed or text.lstrip()[:1] in ("{", "["):
        loaded = _load_json(text, shown_as)
    else:
        loaded = load_yaml_text(text, file=shown_as)
    # The spec loader keeps going past a duplicate key to report every problem; a user document with
    # any problem is refused whole, so no occurrence "is ignored".
    issues = [replace(i, message=i.message.replace(_IGNORED, "")) for i in loaded.issues]
    if not issues and _may_hold_controls(text):
        issues = [
            SpecIssue(shown_as, loaded.position(where), where, message)
            for where, message in control_characters(loaded.data)
        ]
    if issues:
        raise SchemaRouterError(issue_lines(issues))
    return UserDocument(shown=shown_as, sha256=digest, loaded=loaded)


class _JsonDocument(LoadedDocument):
    """A JSON document whose positions are found when a problem asks for one (``safe_json.position_of``,
    one scan of the text), not composed up front: composing a 4 MB document as YAML for its positions
    takes seconds, and a document without problems never needs them."""

    def __init__(self, file: str, data: Any, text: str) -> None:
        super().__init__(file=file, data=data)
        self._text = text

    def position(self, path: PathKey, *, at_key: bool = False) -> Position:
        line, col = safe_json.position_of(self._text, tuple(path))
        return Position(line, col)


def _load_json(text: str, shown_as: str) -> LoadedDocument:
    try:
        data = safe_json.loads(text)
    except safe_json.JsonTextError:  # the spec loader's reading names the problem (duplicate keys at both)
        return load_json_text(text, file=shown_as)
    return _JsonDocument(shown_as, data, text)


def issue_lines(issues: list[SpecIssue]) -> str:
    """The issues as lines (each shortened to one line), at most ``MAX_LINES``, saying how many more."""
    lines = [_bounded(str(issue)) for issue in issues[:MAX_LINES]]
    if len(issues) > MAX_LINES:
        lines.append(f"... and {len(issues) - MAX_LINES} more problems")
    return "\n".join(lines)


def _bounded(line: str, limit: int = 400) -> str:
    line = one_line(line)
    return line if len(line) <= limit else line[:limit] + "..."


def _may_hold_controls(text: str) -> bool:
    """Whether a string of the data may hold a control character: both loaders refuse C0 controls
    written as themselves, so only an escape (which needs a backslash) or a DEL or C1 control written
    as itself can make one; the walk below is skipped for the many documents with neither."""
    return _ESCAPE_OR_C1.search(text) is not None


_ESCAPE_OR_C1 = re.compile(r"[\\\x7f-\x9f]")


def control_characters(data: JSONValue) -> Iterator[tuple[PathKey, str]]:
    """(path, message) for every key or string of ``data`` holding a control character (tab, line feed
    and carriage return apart), in document order."""
    stack: list[tuple[PathKey, JSONValue]] = [((), data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            bad = _first_control(value)
            if bad is not None:
                yield where, f"control character U+{ord(bad):04X} is not allowed in a string"
        elif isinstance(value, dict):
            for key in value:
                bad = _first_control(key)
                if bad is not None:
                    yield where, f"control character U+{ord(bad):04X} is not allowed in a key"
            stack.extend(((*where, key), item) for key, item in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend(((*where, index), item) for index, item in reversed(list(enumerate(value))))


def _first_control(text: str) -> str | None:
    if text.isprintable():
        return None
    for char in text:
        if unicodedata.category(char) == "Cc" and char not in _ALLOWED_CONTROLS:
            return char
    return None


__all__ = [
    "SHOWN_CHARS",
    "UserDocument",
    "control_characters",
    "decode_user_text",
    "issue_lines",
    "one_line",
    "read_user_bytes",
    "read_user_document",
    "shown",
]
