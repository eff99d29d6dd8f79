"""`sr validate`, `sr freeze`, `sr verify`, `sr compile`: thin commands over compiler."""

from __future__ import annotations

from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, app, fail, paths
from schemarouter.project import ProjectPaths


def require_project(ctx: typer.Context, experiment: str | None = None) -> ProjectPaths:
    """The project, refused (before anything is written, even a lock guard) if it has no spec/."""
    project = paths(ctx, experiment)
    if not project.spec_dir.is_dir():
        raise fail(f"{project.root}: not a SchemaRouter project (no spec/ directory); pass --project-dir")
    return project


@app.command()
def validate(
    ctx: typer.Context,
    codes: Annotated[
        bool, typer.Option("--codes", help="End each problem line with its stable code, e.g. [MG109].")
    ] = False,
    experiment: ExperimentOpt = None,
) -> None:
    """Check every spec/<name>.yaml against spec/schema/<name>.schema.json, then against the seed.

    Reports every problem at once, one line each, sorted by position, as file:line:col: key.path: message.
    Problems: YAML that is not plain data, duplicate keys, schema errors, unknown keys.
    Seed rules: allowed/forbidden state items, the five conditions and their limits, 180 tasks, gates.
    Each problem has a stable code (--codes shows it; tests/cases/validation/<code>.yaml has examples).
    Exits 1 if there is any problem.
    """
    from compiler import validate_project
    from compiler.issues import SpecValidationError, with_codes

    try:
        validated = validate_project(paths(ctx, experiment))
    except SpecValidationError as err:
        raise fail(with_codes(err) if codes else str(err)) from None
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
    accept_infeasible: Annotated[
        str | None,
        typer.Option(
            "--accept-infeasible",
            help="Freeze although the preflight finds a gate criterion unreachable; the reason and the "
            "preflight's table are kept in the lock.",
        ),
    ] = None,
    experiment: ExperimentOpt = None,
) -> None:
    """Validate, preflight, then write spec/freeze.lock: a sha256 per frozen file, a root hash, the time.

    Covers every file under spec/ (the lock aside) and under catalogs/.
    YAML and JSON are hashed as RFC 8785 canonical JSON of their data: comments and formatting do not count.
    Runs `sr preflight` first (a pilot on the development surface): an unreachable criterion is refused
    unless --accept-infeasible gives a reason.
    Re-freezing appends to the lock's history and is allowed until the first scored run.
    After it, any change to a frozen file is refused. Freezing unchanged files does nothing.
    """
    from schemarouter.api import freeze as freeze_experiment

    project = require_project(ctx, experiment)
    outcome = freeze_experiment(project, reason=reason, accept_infeasible=accept_infeasible, show=_echo_lines)
    if outcome.note:
        typer.echo(outcome.note)
    typer.echo(outcome.message)
    typer.echo(outcome.code)  # the code it executes, annexed


def _echo_lines(lines: list[str]) -> None:
    for line in lines:
        typer.echo(line)


@app.command()
def verify(
    ctx: typer.Context,
    all_experiments: Annotated[
        bool, typer.Option("--all", help="Verify every frozen experiment of the project (drafts are listed).")
    ] = False,
    history: Annotated[
        bool,
        typer.Option(
            "--history",
            help="Also walk the locks through the branch's git history: a scoring record or freeze entry "
            "that disappears, or a recorded root rewritten, fails naming the commit.",
        ),
    ] = False,
    canaries: Annotated[
        bool,
        typer.Option(
            "--canaries",
            help="Rerun the code record's behavioural canaries even when every implementation digest "
            "matches (they rerun by themselves when one differs).",
        ),
    ] = False,
    experiment: ExperimentOpt = None,
) -> None:
    """Recompute the frozen files' hashes and compare them with the experiment's lock; exit 1 on any drift.

    Names each file added, removed or changed, what changed in a spec's data (state_contract.allowed:
    field "foo" added) or a catalog's route and task ids; checks the lock against its lock_digest and HEAD.
    """
    from schemarouter.api import verify as verify_experiments

    project = require_project(ctx, experiment)
    outcome = verify_experiments(project, all_experiments=all_experiments, history=history, canaries=canaries)
    for line in outcome.lines:
        typer.echo(line)
    for line in outcome.errors:
        typer.echo(line, err=True)
    if not outcome.ok:
        raise typer.Exit(1)


@app.command("compile")
def compile_command(
    ctx: typer.Context,
    require_frozen: Annotated[
        bool,
        typer.Option("--require-frozen", help="Refuse to compile a draft (no spec/freeze.lock)."),
    ] = False,
    full: Annotated[
        bool, typer.Option("--full", help="Compile even when build/<id>/compiled.json is current.")
    ] = False,
    experiment: ExperimentOpt = None,
) -> None:
    """Validate, verify against spec/freeze.lock, and write build/compiled.json for the runtime.

    Refuses specs that drifted from the lock; a draft (no lock) is compiled and marked, and scoring
    refuses it. A frozen experiment whose compiled.json is current (every source, lock and code digest
    it records unchanged, and the freeze verified) is reused, as dbt's partial parsing does; --full
    compiles anyway.
    """
    from runtime.report.command_progress import CommandProgress
    from schemarouter.api.pipeline import compile_outcome

    project = paths(ctx, experiment)
    with CommandProgress("sr compile") as progress:
        outcome = compile_outcome(project, require_frozen=require_frozen, full=full, progress=progress)
    target = project.compiled_manifest.relative_to(project.root).as_posix()
    freeze = outcome.spec.build.freeze
    if freeze is None:
        typer.echo(f"{target}: compiled a DRAFT (no {project.lock_display}); scoring will refuse it")
    else:
        done = "current (every source unchanged; freeze verified)" if outcome.reused else "compiled"
        typer.echo(f"{target}: {done}, frozen at {freeze.root}")


@app.command("schemas")
def schemas_command(
    update: Annotated[bool, typer.Option("--update", help="Rewrite the schema files that differ.")] = False,
) -> None:
    """Check (or --update) the JSON Schemas of compiled.json, freeze.lock and the trace against the models."""
    from schemarouter.application.schemas import stale_schemas, update_schemas

    if update:
        for path in update_schemas():
            typer.echo(f"wrote {path}")
        return
    stale = stale_schemas()
    for path in stale:
        typer.echo(f"{path}: differs from its model; regenerate with sr schemas --update", err=True)
    if stale:
        raise typer.Exit(1)
    typer.echo("schemas: every checked-in schema matches its model")
