"""Phrasings filled by a restricted formatter: only ``{slot}``, never ``str.format``.

A phrasing is text with slots: ``"Which airport is closest to {place}?"``. ``str.format`` would also
take a format spec (``{place:>999999999}`` pads to a gigabyte), a conversion (``{place!r}``), an
attribute or an index (``{place.__class__}``, ``{place[0]}``), so a phrasing from a user's intents
file is parsed here instead, once, into literal text and slot names:

- ``{name}`` is a slot, ``name`` an identifier (``[A-Za-z_][A-Za-z0-9_]*``);
- ``{{`` and ``}}`` are a literal ``{`` and ``}``, as in ``str.format`` (so a phrasing that is valid
  here fills to exactly the text ``str.format`` gives: the surfaces stay byte-identical);
- anything else between braces, an empty ``{}``, a brace left open (``near {place``) or a lone ``}``
  is a ``PhrasingError`` naming the column; so is a phrasing longer than ``limits.PHRASING_CHARS``.

Filling joins the parts with the slot values; its cost is the length of the result, nothing more.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from runtime.core import limits

_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}|\{|\}")


class PhrasingError(ValueError):
    """A phrasing the restricted formatter does not take; the message says where and why."""


@dataclass(frozen=True)
class Phrasing:
    """A parsed phrasing: literal text and slot names, in order (a slot is a ``Slot``)."""

    parts: tuple[str | Slot, ...]

    @property
    def slots(self) -> frozenset[str]:
        return frozenset(p.name for p in self.parts if isinstance(p, Slot))

    def fill(self, values: Mapping[str, str]) -> str:
        """The text with each slot replaced by its value (``KeyError`` for a slot without one)."""
        return "".join(p if isinstance(p, str) else values[p.name] for p in self.parts)


@dataclass(frozen=True)
class Slot:
    name: str


@lru_cache(maxsize=8192)  # sampling fills the same phrasings many times
def parse_phrasing(text: str) -> Phrasing:
    """``text`` as literal parts and slots; a ``PhrasingError`` for anything but ``{slot}``, ``{{``, ``}}``
    (or past ``limits.PHRASING_CHARS``)."""
    if len(text) > limits.PHRASING_CHARS:
        raise PhrasingError(limits.over_limit("characters", len(text), "PHRASING_CHARS"))
    parts: list[str | Slot] = []
    literal: list[str] = []
    at = 0
    for match in _TOKEN.finditer(text):
        literal.append(text[at : match.start()])
        token = match.group()
        if token in ("{{", "}}"):
            literal.append(token[0])
        elif match.group(1) is not None:
            parts.append("".join(literal))
            literal = []
            parts.append(Slot(match.group(1)))
        else:
            raise PhrasingError(_why(text, match.start()))
        at = match.end()
    literal.append(text[at:])
    parts.append("".join(literal))
    return Phrasing(tuple(p for p in parts if p != ""))


def _why(text: str, index: int) -> str:
    column = index + 1
    if text[index] == "}":
        return f"column {column}: a lone '}}' (write '}}}}' for a literal brace)"
    close = text.find("}", index)
    if close < 0:
        return f"column {column}: '{{' is never closed (write '{{{{' for a literal brace)"
    return (
        f"column {column}: only {{slot}} is allowed: a slot name, with no format spec, conversion, "
        "attribute or index (write '{{' for a literal brace)"
    )
