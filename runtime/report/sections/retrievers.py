"""report.md: each condition's retriever, when any condition names its own (issue #25).

A successor may keep the comparator on one strategy while the treatment uses another; the report
says which ranked what. Absent when every condition shares retriever.yaml's (0.14: no section, so
its report.md is unchanged)."""

from __future__ import annotations

from runtime.report.section_registry import SectionContext, report_section


@report_section("retrievers", order=15)
def retrievers_section(context: SectionContext) -> list[str]:
    if not context.retrievers:
        return []
    lines = ["## Retriever per condition", "", "| condition | retrieval strategy |", "| --- | --- |"]
    lines += [f"| {condition} | `{code}` |" for condition, code in context.retrievers.items()]
    return [*lines, ""]
