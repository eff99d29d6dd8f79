"""Sections of report.md by stable code: ``@report_section(code, order=...)`` registers a renderer where it
is defined. The built-in sections live in ``markdown.py``; others in modules of ``report/sections/``,
which are discovered when a report is rendered, so adding one edits no central file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runtime.core.registry import Registry
from runtime.report.report_data import ReportData
from runtime.spec_model.identity import Lineage


@dataclass(frozen=True)
class SectionContext:
    """What a section renders from: report.json, latency.json (None when absent), metric titles, lineage,
    each condition's strategy, the PNG plots drawn beside report.md."""

    report: ReportData
    latency: dict[str, Any] | None
    titles: dict[str, str]
    lineage: Lineage | None
    retrievers: dict[str, str] | None = None  # condition -> strategy, when any condition names its own
    plot_files: tuple[str, ...] = ()  # the PNGs drawn beside report.md (none unless asked for)

    @property
    def catalogs(self) -> list[str]:
        return [str(k) for k in self.report["scope"]["catalogs"]]


SectionFn = Callable[[SectionContext], list[str]]


@dataclass(frozen=True)
class RegisteredSection:
    code: str
    order: int
    fn: SectionFn


# The built-ins register from markdown.py; the modules of report/sections/ are discovered; installed
# packages add theirs through the ``schemarouter.report_sections`` entry points.
SECTIONS: Registry[RegisteredSection] = Registry(
    "report section", group="report_sections", package="runtime.report.sections"
)


def report_section(code: str, *, order: int) -> Callable[[SectionFn], SectionFn]:
    def register(fn: SectionFn) -> SectionFn:
        SECTIONS.add(code, RegisteredSection(code, order, fn), module=fn.__module__)
        return fn

    return register


def registered_sections() -> list[RegisteredSection]:
    """Every section, by order then code (the extra sections' package imported first)."""
    return sorted((e.value for e in SECTIONS.entries()), key=lambda s: (s.order, s.code))


def render_sections(context: SectionContext) -> list[str]:
    lines: list[str] = []
    for section in registered_sections():
        lines += section.fn(context)
    return lines
