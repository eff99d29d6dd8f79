"""The ``sr surface`` sub-command group, shared by two areas.

``sr surface stats`` (generate_commands) and ``sr surface recall`` (retrieval_commands) both register
on ``surface_app``; this module only creates the group and mounts it on ``sr``, so neither area owns it.
"""

from __future__ import annotations

import typer

surface_app = typer.Typer(
    help="Facts about the frozen task surface (counts per cell, static retrieval recall).",
    no_args_is_help=True,
)

# Imported after surface_app exists: importing app registers the command modules, which import
# surface_app from here, so this order works whichever module is imported first.
from schemarouter.cli.app import app  # noqa: E402

app.add_typer(surface_app, name="surface")
