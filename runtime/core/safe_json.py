"""Strict, bounded JSON reading for every file a user can hand to SchemaRouter.

``loads`` is ``json.loads`` with the limits a hostile or careless file needs, each reported as a
``JsonTextError`` carrying the 1-based line and column of the problem:

* nesting deeper than ``MAX_DEPTH`` (found by a scan of the text before parsing, so no parser or
  later walk over the data can hit Python's recursion limit);
* duplicate keys, ``NaN``/``Infinity`` and numbers too large for a float;
* integers longer than ``MAX_INT_DIGITS`` digits (Python refuses to convert them anyway);
* lone UTF-16 surrogates (``"\\ud800"``), which are not Unicode text and cannot be canonicalized.

It never raises anything but ``JsonTextError`` (a ``ValueError``) for bad text.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_DEPTH = 64
MAX_INT_DIGITS = 4300

# A JSON string: unrolled and possessive (the same strings as ``"(?:[^"\\]|\\.)*"``, found at the same
# places, since a character is either a backslash or not and so never has two readings), about 2.5 times
# faster on this project's large files, where the depth scan below was three quarters of ``loads``.
_STRING_PATTERN = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
_TOKENS = re.compile(_STRING_PATTERN + r"|[\[\]{}]", re.DOTALL)
_STRING = re.compile(_STRING_PATTERN, re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_LONG_INT = re.compile(r"(?<![0-9.eE+-])-?[0-9]{" + str(MAX_INT_DIGITS + 1) + ",}")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonTextError(ValueError):
    """Text that is not acceptable JSON; ``line`` and ``column`` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{line}:{column}: {message}")
        self.message = message
        self.line = line
        self.column = column


def describe(file: str | object, err: Exception, what: str) -> str:
    """One line for a file that could not be read: ``file:line:col: what: message`` when the position is
    known (a ``JsonTextError``), else ``file: what: reason``."""
    if isinstance(err, JsonTextError):
        return f"{file}:{err.line}:{err.column}: {what}: {err.message}"
    if isinstance(err, OSError):
        return f"{file}: {what}: {err.strerror or err}"
    return f"{file}: {what}: {err}"


def line_col(text: str, index: int) -> tuple[int, int]:
    """The 1-based line and column of character ``index`` of ``text``."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def decode_utf8(raw: bytes) -> str:
    """``raw`` as UTF-8 text; a ``JsonTextError`` at the first byte that is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        column = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        raise JsonTextError(
            f"not UTF-8 text: {err.reason} (byte 0x{raw[err.start]:02x})", line, column
        ) from None


def depth_problem(text: str, limit: int = MAX_DEPTH) -> JsonTextError | None:
    """The error for the first bracket that nests ``text`` deeper than ``limit``, if there is one."""
    if text.count("[") + text.count("{") <= limit or _bracket_depth(text) <= limit:
        return None
    depth = 0
    for token in _TOKENS.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > limit:
                return JsonTextError(f"nested deeper than {limit} levels", *line_col(text, token.start()))
        elif char in "]}":
            depth -= 1
    return None


def _bracket_depth(text: str) -> int:
    """The deepest nesting of the brackets outside strings, as the token scan above counts them (the
    same string pattern, found by the same leftmost search), without visiting every string in Python."""
    depth = deepest = 0
    for char in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def has_surrogate(text: str) -> bool:
    """True if ``text`` holds a lone UTF-16 surrogate (not a Unicode character)."""
    return _SURROGATE.search(text) is not None


def without_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (for code that needs encodable text)."""
    return _SURROGATE.sub("\ufffd", text) if has_surrogate(text) else text


class _Refused(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = dict(pairs)
    if len(result) == len(pairs):
        return result
    result = {}
    for key, value in pairs:
        if key in result:
            raise _Refused(f"duplicate key {key!r}")
        result[key] = value
    return result


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not plain JSON")


def _float(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise _Refused(f"{text[:40]} is out of range for a JSON number")
    return number


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(f"an integer of {len(text.lstrip('-'))} digits is too long (at most {MAX_INT_DIGITS})")
    return int(text)


def _first_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if has_surrogate(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _locate(text: str, pattern: re.Pattern[str]) -> tuple[int, int]:
    found = pattern.search(text)
    return line_col(text, found.start()) if found else (1, 1)


def loads(text: str | bytes) -> Any:
    """Parse JSON strictly and within the limits above; raise ``JsonTextError`` on any problem."""
    if isinstance(text, bytes | bytearray):
        text = decode_utf8(bytes(text))
    problem = depth_problem(text)
    if problem is not None:
        raise problem
    try:
        data = json.loads(
            text, object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float, parse_int=_int
        )
    except json.JSONDecodeError as err:
        raise JsonTextError(err.msg, err.lineno, err.colno) from None
    except _Refused as err:
        where = _locate(text, _LONG_INT) if "digits is too long" in str(err) else (1, 1)
        raise JsonTextError(str(err), *where) from None
    except (ValueError, RecursionError) as err:
        raise JsonTextError(str(err), 1, 1) from None
    if "\\u" in text and _first_surrogate(data):
        raise JsonTextError("a lone UTF-16 surrogate is not Unicode text", *_locate(text, _SURROGATE_ESCAPE))
    return data


_ALL_TOKENS = re.compile(_STRING_PATTERN + r'|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)
_PATH_PARTS = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def parse_path(text: str) -> tuple[str | int, ...]:
    """``"observed_units[0].unit"`` -> ``("observed_units", 0, "unit")``."""
    return tuple(int(index) if index else key for index, key in _PATH_PARTS.findall(text))


def position_of(text: str, path: tuple[str | int, ...]) -> tuple[int, int]:
    """The 1-based line and column of the value at ``path`` in JSON ``text`` (which ``loads`` accepted),
    or of its closest ancestor that exists; a key that does not resolve points at the mapping."""
    offsets: dict[tuple[str | int, ...], int] = {}
    frames: list[list[Any]] = []  # [path, is_list, index or key, expecting a key]
    target = tuple(path)

    def here() -> tuple[str | int, ...]:
        if not frames:
            return ()
        top = frames[-1]
        return (*top[0], top[2])

    for token in _ALL_TOKENS.finditer(text):
        char = token.group()
        if char == ",":
            if frames:
                if frames[-1][1]:
                    frames[-1][2] += 1
                else:
                    frames[-1][3] = True
            continue
        if char == ":":
            continue
        if char in "]}":
            if frames:
                frames.pop()
            continue
        if frames and not frames[-1][1] and frames[-1][3]:
            try:
                frames[-1][2] = json.loads(char)
            except ValueError:
                frames[-1][2] = char
            frames[-1][3] = False
            offsets.setdefault((*frames[-1][0], frames[-1][2]), token.start())
            continue
        where = here()
        if where == target:  # found: nothing later in the text can change the answer
            return line_col(text, token.start())
        offsets[where] = token.start()
        if char == "[":
            frames.append([where, True, 0, False])
        elif char == "{":
            frames.append([where, False, None, True])
    probe = tuple(path)
    while probe and probe not in offsets:
        probe = probe[:-1]
    return line_col(text, offsets.get(probe, 0))
