"""The ``sr`` command: thin typer commands over plain functions.

Each command module registers its commands on ``app``. A ``SchemaRouterError`` becomes its message on
stderr and exit code 1, never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from schemarouter.errors import SchemaRouterError
from schemarouter.project import ProjectPaths

app = typer.Typer(
    name="sr",
    help="SchemaRouter: a preregistered experiment harness for tool retrieval in multi-step LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(
    ctx: typer.Context,
    project_dir: Annotated[
        Path | None,
        typer.Option(
            "--project-dir",
            envvar="SR_PROJECT_DIR",
            help="The SchemaRouter project to work on (default: the current directory).",
        ),
    ] = None,
) -> None:
    ctx.obj = ProjectPaths.at(project_dir)


def paths(ctx: typer.Context) -> ProjectPaths:
    """The project paths chosen by ``--project-dir`` (or the current directory)."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, ProjectPaths) else ProjectPaths.at()


def fail(message: str) -> typer.Exit:
    """Print a clean error and return the Exit to raise (``raise fail(msg) from None``)."""
    typer.echo(message, err=True)
    return typer.Exit(1)


def _register_all() -> None:
    from schemarouter.cli import (  # noqa: F401  (each module registers its commands)
        engine_commands,
        generate_commands,
        retrieval_commands,
        run_commands,
        spec_commands,
    )


_register_all()


def main() -> None:
    try:
        app()
    except SchemaRouterError as err:
        typer.echo(str(err), err=True)
        sys.exit(1)
