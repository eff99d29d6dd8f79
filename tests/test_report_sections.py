"""report.md is composed of registered sections: the built-ins in their order, and a new section added
where it is defined lands at its order without editing markdown.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from registry_support import scratch

from runtime.core.errors import SchemaRouterError
from runtime.report import section_registry
from runtime.report.markdown import render_markdown
from runtime.report.section_registry import SectionContext, registered_sections, report_section

REPO = Path(__file__).resolve().parents[1]


def test_the_built_in_sections_come_in_their_documented_order() -> None:
    codes = [s.code for s in registered_sections()]
    expected = ["header", "repeated_trials", "gate", "metrics", "differences", "latency", "diagnostics"]
    expected += ["lineage", "plots"]
    assert [c for c in codes if c in expected] == expected


def test_a_new_section_lands_at_its_order(monkeypatch: pytest.MonkeyPatch) -> None:
    scratch(monkeypatch, section_registry.SECTIONS)

    @report_section("tokens_note", order=55)  # between the differences (50) and latency (60)
    def _note(ctx: SectionContext) -> list[str]:
        return ["## Note", "", f"{len(ctx.catalogs)} catalog sizes.", ""]

    with pytest.raises(SchemaRouterError, match="registered twice: by test_report_sections and by"):
        report_section("tokens_note", order=1)(lambda ctx: [])
    codes = [s.code for s in registered_sections()]
    assert codes.index("differences") < codes.index("tokens_note") < codes.index("latency")


def test_render_markdown_is_the_sections_joined(monkeypatch: pytest.MonkeyPatch) -> None:
    scratch(monkeypatch, section_registry.SECTIONS, empty=True)
    report_section("b", order=2)(lambda ctx: ["second"])
    report_section("a", order=1)(lambda ctx: ["first", ""])
    report = {"scope": {"catalogs": [100]}}
    assert render_markdown(report, None, {}) == "first\n\nsecond"
