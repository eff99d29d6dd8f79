"""Sections of report.html by stable code: ``@html_section(code, order=..., title=..., nav=...)`` registers
a renderer where it is defined, as ``section_registry.py`` does for report.md. The built-in sections
(``gate``, ``breakdowns``, ``traces``) live in ``html.py`` at orders 10, 20 and 30; others in modules of
``report/sections/``, which are discovered when a page is rendered, so adding one edits no central file.

A renderer takes report.json's dict and returns the section's inner HTML, escaped by the renderer; the
page wraps it in ``<section id=CODE><h2>TITLE</h2>`` and links it from the page's navigation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from schemarouter.discovery import import_modules

HtmlSectionFn = Callable[[dict[str, Any]], str]
_CODE = re.compile(r"^[a-z][a-z0-9-]*$")  # an HTML id and a URL fragment as it stands


@dataclass(frozen=True)
class RegisteredHtmlSection:
    code: str
    order: int
    title: str
    nav: str
    fn: HtmlSectionFn


_REGISTRY: dict[str, RegisteredHtmlSection] = {}


def html_section(
    code: str, *, order: int, title: str, nav: str | None = None
) -> Callable[[HtmlSectionFn], HtmlSectionFn]:
    """Register a section of report.html; ``nav`` is its link text (default: ``title``)."""
    if not _CODE.match(code):
        raise ValueError(f"report.html section code {code!r}: use lowercase letters, digits and '-'")

    def register(fn: HtmlSectionFn) -> HtmlSectionFn:
        if code in _REGISTRY and _REGISTRY[code].fn is not fn:
            raise ValueError(f"report.html section {code!r} is registered twice")
        _REGISTRY[code] = RegisteredHtmlSection(code, order, title, nav or title, fn)
        return fn

    return register


def registered_html_sections() -> list[RegisteredHtmlSection]:
    """Every section, by order then code (the extra sections' package imported first)."""
    import_modules("schemarouter.runtime.report.sections")
    return sorted(_REGISTRY.values(), key=lambda s: (s.order, s.code))
