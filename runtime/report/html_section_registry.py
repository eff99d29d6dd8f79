"""Sections of report.html by stable code: ``@html_section(code, order=..., title=..., nav=...)`` registers
a renderer where it is defined, as ``section_registry.py`` does for report.md. The built-in sections
(``gate``, ``breakdowns``, ``traces``) live in ``html.py`` at orders 10, 20 and 30; others in modules of
``report/sections/``, which are discovered when a page is rendered, so adding one edits no central file.

A renderer takes an ``HtmlContext`` (report.json's data, and the per-task rows and cell axes the figures
read, when the page is rendered from a scored directory) and returns the section's inner HTML, escaped by
the renderer; the page wraps it in ``<section id=CODE><h2>TITLE</h2>`` and links it from the page's
navigation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from runtime.core.registry import Registry
from runtime.report.figure_cells import FigureInputs
from runtime.report.report_data import ReportData


@dataclass(frozen=True)
class HtmlContext:
    """What a report.html section renders from: report.json's data and, when the page is rendered from a
    scored directory, the per-task rows with the spec's strata, languages and Recall@5 components."""

    report: ReportData
    figures: FigureInputs | None = None


HtmlSectionFn = Callable[[HtmlContext], str]
_CODE = re.compile(r"^[a-z][a-z0-9-]*$")  # an HTML id and a URL fragment as it stands


@dataclass(frozen=True)
class RegisteredHtmlSection:
    code: str
    order: int
    title: str
    nav: str
    fn: HtmlSectionFn


# Built-ins from html.py, the modules of report/sections/ (discovered), and the
# ``schemarouter.report_sections`` entry points (a module there may register both kinds of section).
HTML_SECTIONS: Registry[RegisteredHtmlSection] = Registry(
    "report.html section", group="report_sections", package="runtime.report.sections"
)


def html_section(
    code: str, *, order: int, title: str, nav: str | None = None
) -> Callable[[HtmlSectionFn], HtmlSectionFn]:
    """Register a section of report.html; ``nav`` is its link text (default: ``title``)."""
    if not _CODE.match(code):
        raise ValueError(f"report.html section code {code!r}: use lowercase letters, digits and '-'")

    def register(fn: HtmlSectionFn) -> HtmlSectionFn:
        entry = RegisteredHtmlSection(code, order, title, nav or title, fn)
        HTML_SECTIONS.add(code, entry, module=fn.__module__)
        return fn

    return register


def registered_html_sections() -> list[RegisteredHtmlSection]:
    """Every section, by order then code (the extra sections' package imported first)."""
    return sorted((e.value for e in HTML_SECTIONS.entries()), key=lambda s: (s.order, s.code))
