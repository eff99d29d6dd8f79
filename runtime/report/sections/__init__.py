"""Sections of report.md beyond the built-in ones: each module here registers its own with
``@report_section`` (``runtime/report/section_registry.py``) and is discovered; see README.md."""
