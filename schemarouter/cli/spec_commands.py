"""`sr validate`, `sr freeze`, `sr verify`, `sr compile`: thin commands over schemarouter.compiler."""

from __future__ import annotations

from typing import Annotated

import typer

from schemarouter.cli.app import app, fail, paths
from schemarouter.errors import SchemaRouterError
from schemarouter.project import ProjectPaths


def require_project(ctx: typer.Context) -> ProjectPaths:
    """The project, refused (before anything is written, even a lock guard) if it has no spec/."""
    project = paths(ctx)
    if not project.spec_dir.is_dir():
        raise fail(f"{project.root}: not a SchemaRouter project (no spec/ directory); pass --project-dir")
    return project


@app.command()
def validate(ctx: typer.Context) -> None:
    """Check every spec/<name>.yaml against spec/schema/<name>.schema.json, then against the seed.

    Reports every problem at once, one line each, sorted by position, as file:line:col: key.path: message.
    Problems: YAML that is not plain data, duplicate keys, schema errors, unknown keys.
    Seed rules: allowed/forbidden state items, the five conditions and their limits, 180 tasks, gates.
    Exits 1 if there is any problem.
    """
    from schemarouter.compiler import validate_project

    try:
        validated = validate_project(paths(ctx))
    except SchemaRouterError as err:
        raise fail(str(err)) from None
    typer.echo(f"spec: {len(validated.names)} files valid ({', '.join(validated.names)})")


@app.command()
def freeze(
    ctx: typer.Context,
    reason: Annotated[
        str,
        typer.Option(
            "--reason",
            help="Why the specs are (re-)frozen; kept in the lock's history beside the root hash.",
        ),
    ],
) -> None:
    """Validate, then write spec/freeze.lock: a sha256 per frozen file, a root hash, the time and git commit.

    Covers every file under spec/ (the lock aside) and under catalogs/.
    YAML and JSON are hashed as RFC 8785 canonical JSON of their data: comments and formatting do not count.
    Re-freezing appends to the lock's history and is allowed until the first scored run.
    After it, any change to a frozen file is refused. Freezing unchanged files does nothing.
    """
    from schemarouter.compiler import freeze_project

    project = require_project(ctx)
    try:
        result = freeze_project(project, reason=reason)
    except SchemaRouterError as err:
        raise fail(str(err)) from None
    typer.echo(result.message())


@app.command()
def verify(ctx: typer.Context) -> None:
    """Recompute the frozen files' hashes and compare them with spec/freeze.lock; exit 1 on any drift.

    Names each file added, removed or changed.
    For a spec file it says what changed in the data, e.g. state_contract.allowed: field "foo" added.
    For a catalog it names the route or task ids added, removed or changed.
    """
    from schemarouter.compiler import verify_project

    project = require_project(ctx)
    try:
        report = verify_project(project)
    except SchemaRouterError as err:
        raise fail(str(err)) from None
    if not report.clean:
        raise fail(report.message())
    typer.echo(report.message())


@app.command("compile")
def compile_command(
    ctx: typer.Context,
    require_frozen: Annotated[
        bool,
        typer.Option("--require-frozen", help="Refuse to compile a draft (no spec/freeze.lock)."),
    ] = False,
) -> None:
    """Validate, verify against spec/freeze.lock, and write build/compiled.json for the runtime.

    Refuses specs that drifted from the lock.
    Without a lock it compiles a draft, marked in the manifest; scoring refuses drafts.
    """
    from schemarouter.compiler import compile_project

    project = paths(ctx)
    try:
        spec = compile_project(project, require_frozen=require_frozen)
    except SchemaRouterError as err:
        raise fail(str(err)) from None
    target = project.compiled_manifest.relative_to(project.root).as_posix()
    if spec.build.freeze is None:
        typer.echo(f"{target}: compiled a DRAFT (no spec/freeze.lock); scoring will refuse it")
    else:
        typer.echo(f"{target}: compiled, frozen at {spec.build.freeze.root}")
