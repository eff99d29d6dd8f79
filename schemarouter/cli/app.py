"""The ``sr`` command: thin typer commands over plain functions.

Each command module registers its commands on ``app``. A ``SchemaRouterError`` becomes its message on
stderr and exit code 1, never a traceback. Any other exception is a fault of this program, not of the
user's input: it is one line on stderr naming the exception, with a hint to rerun with ``sr --debug``,
which lets the traceback through.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from typer.core import TyperGroup

from runtime.core.errors import SchemaRouterError
from schemarouter.project import ProjectPaths


class _CleanErrors(TyperGroup):
    """Every command's SchemaRouterError becomes its message on stderr and exit code 1.

    Catching it here, around the whole command tree, serves ``sr`` and typer's CliRunner alike, so a
    command needs no try/except of its own for the user's mistakes.
    """

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except SchemaRouterError as err:
            typer.echo(printable(str(err)), err=True)
            raise typer.Exit(1) from None
        except Exception as err:
            # Usage errors, Exit and Abort (click's, or the copy of click typer carries) are the
            # framework's own: each has an exit code and prints itself.
            if _is_framework_exit(err) or ctx.params.get("debug") or isinstance(err, BrokenPipeError):
                raise
            if isinstance(err, OSError) and err.filename is not None:
                # A path the user gave, or the machine (permissions, a full disk, a name too long).
                typer.echo(printable(f"{_short(str(err.filename))}: {err.strerror or err}"), err=True)
                raise typer.Exit(1) from None
            typer.echo(printable(internal_error_line(err)), err=True)
            raise typer.Exit(1) from None


app = typer.Typer(
    name="sr",
    cls=_CleanErrors,
    help="SchemaRouter: a preregistered experiment harness for tool retrieval in multi-step LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@dataclass(frozen=True)
class _RootOptions:
    project_dir: Path | None
    experiment: str | None


ExperimentOpt = Annotated[
    str | None,
    typer.Option(
        "--experiment",
        "-e",
        help="The experiment to work on (default: the project file's default_experiment).",
        show_default=False,
    ),
]


SurfaceOpt = Annotated[
    str | None,
    typer.Option(
        "--surface",
        help="evaluation (default), or a named pilot surface of spec/_surfaces/ such as dev: a PILOT, "
        "never scoring of record.",
        show_default=False,
    ),
]
SurfaceFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--surface-file",
        help="A generated surface (DIR/surface.jsonl from `sr surface generate`): a PILOT.",
        show_default=False,
    ),
]


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
    experiment: Annotated[
        str | None,
        typer.Option(
            "--experiment",
            envvar="SR_EXPERIMENT",
            help="The experiment every command works on (each command also takes --experiment).",
        ),
    ] = None,
    debug: Annotated[
        bool,
        typer.Option("--debug", envvar="SR_DEBUG", help="Show the Python traceback of an internal error."),
    ] = False,
) -> None:
    ctx.obj = _RootOptions(project_dir, experiment)


def _is_framework_exit(err: BaseException) -> bool:
    return isinstance(
        err, typer.Exit | typer.Abort | click.ClickException | click.exceptions.Exit
    ) or hasattr(err, "exit_code")


def _short(text: str) -> str:
    return text if len(text) <= 200 else f"{text[:160]}... ({len(text)} characters)"


def internal_error_line(err: BaseException) -> str:
    """The one line an unexpected exception gets: what it was, and how to see the traceback."""
    detail = " ".join(str(err).split())[:300]
    return (
        f"internal error: {type(err).__name__}{': ' + detail if detail else ''} "
        "(a fault of sr, not of your input; rerun with `sr --debug ...` for the traceback)"
    )


def paths(ctx: typer.Context, experiment: str | None = None) -> ProjectPaths:
    """The paths of the experiment chosen by the command's ``--experiment`` (else the root option's, else
    the project's default) in the project chosen by ``--project-dir`` (or the current directory)."""
    obj = ctx.find_root().obj
    root = obj if isinstance(obj, _RootOptions) else _RootOptions(None, None)
    return ProjectPaths.at(root.project_dir, experiment=experiment or root.experiment)


def project_root(ctx: typer.Context) -> Path:
    """The project directory (``--project-dir``, else the current directory), for commands that work
    on files rather than on an experiment (the output guard needs it: ``schemarouter/output_guard.py``)."""
    obj = ctx.find_root().obj
    chosen = obj.project_dir if isinstance(obj, _RootOptions) else None
    return Path(chosen if chosen is not None else Path.cwd()).resolve()


MAX_LINE = 1000


def printable(message: str) -> str:
    """``message`` as it can always be printed: lone surrogates escaped, every line at most MAX_LINE
    characters (a 1 MB value in a file is named, not echoed)."""
    lines = []
    for line in message.encode("utf-8", "backslashreplace").decode("utf-8").splitlines() or [""]:
        if len(line) > MAX_LINE:
            line = f"{line[: MAX_LINE - 40]}... ({len(line)} characters)"
        lines.append(line)
    return "\n".join(lines)


def fail(message: str) -> typer.Exit:
    """Print a clean error and return the Exit to raise (``raise fail(msg) from None``)."""
    typer.echo(printable(message), err=True)
    return typer.Exit(1)


def _register_all() -> None:
    from schemarouter.cli import (  # noqa: F401  (each module registers its commands)
        cache_commands,
        catalog_commands,
        confirm_commands,
        diagnostics_commands,
        engine_commands,
        experiment_commands,
        export_commands,
        generate_commands,
        llm_commands,
        preflight_commands,
        retrieval_commands,
        retrieval_eval_commands,
        run_commands,
        serve_commands,
        spec_commands,
        surface_commands,
    )


_register_all()


def main() -> None:
    try:
        app()
    except SchemaRouterError as err:
        typer.echo(printable(str(err)), err=True)
        sys.exit(1)
    except BrokenPipeError:
        # The reader went away (`sr ... | head`): not an error of sr; stop quietly, as other tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
