"""JSON Schema (Draft 2020-12) validation that reports every error at the line it concerns.

Each schema is itself checked against the 2020-12 meta-schema first. Every validation error becomes a
``SpecIssue`` at the offending value; an unknown key is reported at the key itself, one issue per key.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from schemarouter.compiler.issues import SpecIssue
from schemarouter.compiler.yaml_loader import LoadedDocument

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def check_schema(schema: LoadedDocument) -> list[SpecIssue]:
    """Problems with the schema file itself (wrong draft, not a valid 2020-12 schema)."""
    data = schema.data
    if not isinstance(data, dict):
        return [schema.issue((), "a schema must be a JSON object")]
    if data.get("$schema") != DRAFT_2020_12:
        return [schema.issue(("$schema",), f'"$schema" must be "{DRAFT_2020_12}"', at_key=True)]
    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    return [schema.issue(tuple(e.absolute_path), e.message) for e in meta.iter_errors(data)]


def validate_document(document: LoadedDocument, schema: dict[str, Any]) -> list[SpecIssue]:
    """Every schema violation in ``document``, each at its position."""
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    issues: list[SpecIssue] = []
    for error in validator.iter_errors(document.data):
        issues.extend(_issues_for(error, document))
    return issues


def _issues_for(error: ValidationError, document: LoadedDocument) -> Iterator[SpecIssue]:
    path = tuple(error.absolute_path)
    instance = error.instance
    if error.validator in ("additionalProperties", "unevaluatedProperties") and isinstance(instance, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        known = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        extras = [k for k in instance if k not in known and not any(re.search(p, k) for p in patterns)]
        expected = f" (expected one of: {', '.join(sorted(known))})" if known else ""
        for key in extras:
            yield document.issue((*path, key), f"unknown key {key!r}{expected}", at_key=True)
        if extras:
            return
    if (
        error.validator == "required"
        and isinstance(error.validator_value, list)
        and isinstance(instance, dict)
    ):
        for key in error.validator_value:
            if key not in instance:
                yield document.issue(path, f"missing required key {key!r}", at_key=True)
        return
    if error.context:
        best = best_match(error.context)
        detail = best.message
        yield document.issue(path, f"{error.message}: {detail}" if detail != error.message else detail)
        return
    yield document.issue(path, error.message)
