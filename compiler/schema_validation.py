"""JSON Schema (Draft 2020-12) validation that reports every error at the line it concerns.

Each schema is itself checked against the 2020-12 meta-schema first, then against the rules of this
project (``schema_rules``):

* every ``pattern`` and ``patternProperties`` key compiles under RE2. Patterns are evaluated by RE2,
  whose matching time is linear in the input, so no pattern can hang validation (``^(a+)+$`` is as
  fast as ``^a+$``); RE2 has no backreferences or lookaround, and a pattern using them is refused;
* ``$ref`` and ``$dynamicRef`` point inside the same schema (``#`` or ``#/json/pointer``) and resolve
  there; nothing is ever retrieved, from the network or from a ``file:`` URI. ``$id`` is allowed at
  the top only, so every ``#`` means this file.

Every validation error becomes a ``SpecIssue`` at the offending value; an unknown key is reported at
the key itself, one issue per key. A value echoed in a message is shortened to ``MAX_SHOWN``
characters.

A process that compiles many times (the application layer used as a library, a test suite) checks
the same schemas and documents again and again, so a clean outcome is remembered by content: the
sha256 of the pickled data (which keeps 1, 1.0, True and "1" apart; different sharing or key order is
only a miss). Only "no problems" is remembered, at most ``_CLEAN_MAX`` of them, so every problem is
still found, and reported at its position, each time.
"""

from __future__ import annotations

import hashlib
import pickle
from collections import OrderedDict
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Final
from urllib.parse import unquote

import re2
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry
from referencing.exceptions import Unresolvable

from compiler.issues import SpecIssue
from compiler.yaml_loader import LoadedDocument, PathKey
from runtime.core.json_value import JSONObject, JSONValue
from runtime.core.safe_json import has_surrogate, without_surrogates

# The problems this module reports, by stable code (tests/cases/validation/<code>.yaml shows each).
PROBLEMS: Final[dict[str, str]] = {
    "SV101": "a $ref that points outside its schema (only #/... refs; nothing is retrieved)",
    "SV102": "… … does not resolve in this schema",
    "SV103": "$id is allowed only at the top of a schema",
    "SV104": "a schema pattern that RE2 cannot compile or that is unsafe",
    "SV105": "a patternProperties key that RE2 cannot compile or that is unsafe",
    "SV106": "unevaluatedProperties together with patternProperties is not supported here",
    "SV107": "a schema must be a JSON object",
    "SV108": "a schema that is not JSON Schema draft 2020-12",
    "SV109": "a schema that its draft's meta-schema rejects",
    "SV110": "the schema has a reference that does not resolve: …",
    "SV111": "a key the schema does not allow",
    "SV112": "a key the schema requires is missing",
    "SV113": "a value that fits none of the schema's alternatives",
    "SV114": "a value the schema rejects (type, enum, const, bounds, pattern)",
}

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
MAX_SHOWN = 200

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False
# Keywords whose values are data, not subschemas: a "pattern" or "$ref" key inside them is a value.
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
_NAMED_SUBSCHEMAS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


@lru_cache(maxsize=4096)
def _regex(pattern: str) -> Any:
    return re2.compile(pattern, _RE2_OPTIONS)


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be used (RE2 cannot compile it), or None."""
    if has_surrogate(pattern):
        return f"pattern {_short(pattern)} holds a lone UTF-16 surrogate"
    try:
        _regex(pattern)
    except re2.error as err:
        reason = (
            err.args[0].decode("utf-8", "replace") if err.args and isinstance(err.args[0], bytes) else err
        )
        return f"pattern {_short(pattern)} is not a usable regular expression: {reason}"
    return None


def _search(pattern: str, text: str) -> bool:
    # RE2 matches UTF-8; a lone surrogate (already reported by the loader) cannot be encoded.
    return _regex(pattern).search(without_surrogates(text)) is not None


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{_short(instance)} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(instance: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    known = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    return [k for k in instance if k not in known and not any(_search(p, k) for p in patterns)]


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = _additional(instance, schema)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        shown = ", ".join(repr(extra) for extra in sorted(extras))
        yield ValidationError(f"Additional properties are not allowed ({_short(shown)} unexpected)")


_Validator = validators.extend(
    Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    },
)


def _short(value: Any) -> str:
    shown = repr(value)
    if len(shown) <= MAX_SHOWN:
        return shown
    return f"{shown[: MAX_SHOWN - 20]}... ({len(shown)} characters)"


def _shorten(message: str) -> str:
    if len(message) <= 2 * MAX_SHOWN:
        return message
    return f"{message[: 2 * MAX_SHOWN]}... ({len(message)} characters)"


def _subschemas(node: JSONValue, path: PathKey) -> Iterator[tuple[JSONObject, PathKey]]:
    """Every (sub)schema object of a schema, with its path; data keywords are not descended into."""
    stack: list[tuple[JSONValue, PathKey]] = [(node, path)]
    while stack:
        current, where = stack.pop()
        if not isinstance(current, dict):
            continue
        yield current, where
        for key, value in current.items():
            if key in _DATA_KEYWORDS:
                continue
            if key in _NAMED_SUBSCHEMAS and isinstance(value, dict):
                stack.extend((inner, (*where, key, name)) for name, inner in value.items())
            elif isinstance(value, dict):
                stack.append((value, (*where, key)))
            elif isinstance(value, list):
                stack.extend((inner, (*where, key, i)) for i, inner in enumerate(value))


def _resolves(root: JSONValue, ref: str) -> bool:
    target = root
    pointer = unquote(ref[1:])
    if not pointer:
        return True
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            return False
    return isinstance(target, dict | bool)


def _ref_issues(schema: LoadedDocument, node: JSONObject, where: PathKey) -> Iterator[SpecIssue]:
    """A ``$ref``/``$dynamicRef`` must point inside the schema (``#/...``) and resolve there."""
    for key in ("$ref", "$dynamicRef"):
        ref = node.get(key)
        if not isinstance(ref, str):
            continue
        if not (ref == "#" or ref.startswith("#/")):
            yield schema.issue(
                (*where, key),
                f"{key} {_short(ref)} points outside this schema; only refs within it (#/...) "
                "are allowed, and nothing is retrieved",
                code="SV101",
            )
        elif not _resolves(schema.data, ref):
            yield schema.issue(
                (*where, key), f"{key} {_short(ref)} does not resolve in this schema", code="SV102"
            )


def _pattern_issues(schema: LoadedDocument, node: JSONObject, where: PathKey) -> Iterator[SpecIssue]:
    """Every ``pattern`` and ``patternProperties`` key must be a usable RE2 pattern."""
    if isinstance(pattern := node.get("pattern"), str) and (problem := pattern_problem(pattern)):
        yield schema.issue((*where, "pattern"), problem, code="SV104")
    if isinstance(patterns := node.get("patternProperties"), dict):
        for key in patterns:
            if problem := pattern_problem(key):
                yield schema.issue((*where, "patternProperties", key), problem, at_key=True, code="SV105")


def schema_rules(schema: LoadedDocument) -> list[SpecIssue]:
    """The project's rules for a schema that passed the meta-schema: usable patterns, local refs."""
    issues: list[SpecIssue] = []
    uses_unevaluated = uses_pattern_properties = False
    for node, where in _subschemas(schema.data, ()):
        issues.extend(_ref_issues(schema, node, where))
        if where and isinstance(node.get("$id"), str):
            issues.append(
                schema.issue(
                    (*where, "$id"), "$id is allowed only at the top of a schema", at_key=True, code="SV103"
                )
            )
        issues.extend(_pattern_issues(schema, node, where))
        uses_pattern_properties |= isinstance(node.get("patternProperties"), dict)
        uses_unevaluated |= "unevaluatedProperties" in node
    if uses_unevaluated and uses_pattern_properties:
        issues.append(
            schema.issue(
                (),
                "unevaluatedProperties together with patternProperties is not supported here",
                code="SV106",
            )
        )
    return issues


_CLEAN_MAX = 512
_CLEAN: OrderedDict[bytes, None] = OrderedDict()


def _content_key(kind: str, *data: Any) -> bytes | None:
    try:
        return hashlib.sha256(pickle.dumps((kind, *data), protocol=5)).digest()
    except (pickle.PicklingError, RecursionError, TypeError, ValueError):
        return None  # nothing remembered; the check runs


def _known_clean(key: bytes | None) -> bool:
    if key is not None and key in _CLEAN:
        _CLEAN.move_to_end(key)
        return True
    return False


def _remember_clean(key: bytes | None) -> None:
    if key is not None:
        _CLEAN[key] = None
        if len(_CLEAN) > _CLEAN_MAX:
            _CLEAN.popitem(last=False)


def check_schema(schema: LoadedDocument) -> list[SpecIssue]:
    """Problems with the schema file itself (wrong draft, not a valid 2020-12 schema)."""
    data = schema.data
    if not isinstance(data, dict):
        return [schema.issue((), "a schema must be a JSON object", code="SV107")]
    if data.get("$schema") != DRAFT_2020_12:
        return [schema.issue(("$schema",), f'"$schema" must be "{DRAFT_2020_12}"', at_key=True, code="SV108")]
    key = _content_key("meta-schema", data)
    if not _known_clean(key):
        meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
        issues = [
            schema.issue(tuple(e.absolute_path), _shorten(e.message), code="SV109")
            for e in meta.iter_errors(data)
        ]
        if issues:
            return issues
        _remember_clean(key)
    return schema_rules(schema)


def validate_document(document: LoadedDocument, schema: JSONObject) -> list[SpecIssue]:
    """Every schema violation in ``document``, each at its position. ``schema`` passed check_schema."""
    key = _content_key("document", schema, document.data)
    if _known_clean(key):
        return []
    issues = _violations(document, schema)
    if not issues:
        _remember_clean(key)
    return issues


def _violations(document: LoadedDocument, schema: JSONObject) -> list[SpecIssue]:
    validator = _Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER, registry=Registry())
    issues: list[SpecIssue] = []
    try:
        for error in validator.iter_errors(document.data):
            issues.extend(_issues_for(error, document))
    except Unresolvable as err:  # check_schema refuses such refs; kept so no traceback can escape
        issues.append(
            document.issue((), f"the schema has a reference that does not resolve: {err}", code="SV110")
        )
    return issues


def _issues_for(error: ValidationError, document: LoadedDocument) -> Iterator[SpecIssue]:
    path = tuple(error.absolute_path)
    instance = error.instance
    if error.validator in ("additionalProperties", "unevaluatedProperties") and isinstance(instance, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        known = schema.get("properties", {})
        extras = _additional(instance, schema)
        expected = f" (expected one of: {', '.join(sorted(known))})" if known else ""
        for key in extras:
            yield document.issue(
                (*path, key), f"unknown key {_short(key)}{expected}", at_key=True, code="SV111"
            )
        if extras:
            return
    if (
        error.validator == "required"
        and isinstance(error.validator_value, list)
        and isinstance(instance, dict)
    ):
        for key in error.validator_value:
            if key not in instance:
                yield document.issue(path, f"missing required key {key!r}", at_key=True, code="SV112")
        return
    if error.context:
        best = best_match(error.context)
        detail = best.message
        message = f"{error.message}: {detail}" if detail != error.message else detail
        yield document.issue(path, _shorten(message), code="SV113")
        return
    yield document.issue(path, _shorten(error.message), code="SV114")
