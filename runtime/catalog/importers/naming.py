"""Deterministic names for what a source does not name: route IDs, semantic IDs, tool names, domains.

Everything here is a pure function of the source's own strings, so an import is byte-identical for
the same file. An attribute built here is listed in the endpoint's or field's ``derived``.
"""

from __future__ import annotations

import re

from runtime.catalog.model import TOOL_NAME

__all__ = [
    "TOOL_NAME",
    "derived_route_id",
    "derived_semantic_id",
    "derived_tool_name",
    "first_sentence",
    "is_identifier_name",
    "snake",
]
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_WORD = re.compile(r"[^a-z0-9]+")


def snake(text: str) -> str:
    """``getPetById`` -> ``get_pet_by_id``; ``/pets/{petId}`` -> ``pets_pet_id``; never empty."""
    spaced = _CAMEL.sub("_", text.strip())
    out = _NON_WORD.sub("_", spaced.lower()).strip("_")
    return out or "x"


def derived_route_id(domain: str, name: str) -> str:
    """``pets`` + ``getPetById`` -> ``pets.get_pet_by_id``."""
    return f"{snake(domain)}.{snake(name)}"


def derived_semantic_id(domain: str, field_name: str) -> str:
    """``pets`` + ``petId`` -> ``pets.pet_id``: one ID per field name within a domain, so an output and
    the input that consumes it meet."""
    return f"{snake(domain)}.{snake(field_name)}"


def derived_tool_name(method: str, path: str) -> str:
    """An operation without an operationId: ``GET /pets/{petId}`` -> ``get_pets_pet_id`` (at most 64)."""
    return snake(f"{method} {path}")[:64].rstrip("_")


def first_sentence(text: str) -> str:
    """The first sentence (or line) of ``text``, for a summary the source does not give."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    match = re.match(r"(.+?[.!?])(\s|$)", line)
    return (match.group(1) if match else line).strip()


def is_identifier_name(name: str) -> bool:
    """Whether an output field's name says it is a stable identifier (``id``, ``order_id``, ``petId``)."""
    s = snake(name)
    return s == "id" or s.endswith("_id") or s.endswith("_uuid") or s == "uuid"
