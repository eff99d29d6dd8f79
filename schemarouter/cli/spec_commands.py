"""`sr` commands for this area; registered on import by schemarouter.cli.app."""

from __future__ import annotations
