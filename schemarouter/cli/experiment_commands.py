"""`sr experiments`, `sr experiment new`, `sr deviations`, `sr lock migrate`, `sr lock pin-code`: experiments
as data."""

from __future__ import annotations

from typing import Annotated

import typer

from schemarouter.cli.app import ExperimentOpt, app, fail, paths

experiment_app = typer.Typer(help="Create experiments: successors with lineage and declared deviations.")
lock_app = typer.Typer(help="Maintain freeze locks.")
app.add_typer(experiment_app, name="experiment")
app.add_typer(lock_app, name="lock")


@app.command("experiments")
def experiments_command(ctx: typer.Context) -> None:
    """List every experiment with its status (draft, frozen, scoring started), root and lineage."""
    from compiler.experiments import list_experiments

    for info in list_experiments(paths(ctx)):
        mark = "*" if info.default else " "
        root = info.root[:12] + "…" if info.root else "-"
        lineage = "no parent"
        if info.lineage:
            at = (info.lineage.parent_root or "draft")[:12]
            lineage = f"parent {info.lineage.parent} at {at}: {info.lineage.reason}"
        typer.echo(f"{mark} {info.experiment_id:<10} {info.status:<16} root {root:<14} {lineage}")
        if info.peeks:
            runs = ", ".join(info.peeks)
            typer.echo(f"    evaluation outcomes seen before freeze: {len(info.peeks)} run(s): {runs}")
        if info.pilots:
            counts = ", ".join(f"{surface} {count}" for surface, count in info.pilots)
            typer.echo(f"    pilots recorded while a draft (runs per surface): {counts}")
        if info.confirmations:
            typer.echo(f"    confirmations (sr confirm): {info.confirmations}")
        if info.problem:
            typer.echo(f"    {info.problem}")


@experiment_app.command("new")
def experiment_new(
    ctx: typer.Context,
    new_id: Annotated[str, typer.Argument(help="The new experiment's id (a directory name, e.g. 0.15).")],
    parent: Annotated[str, typer.Option("--from", help="The parent experiment to copy.")],
    reason: Annotated[str, typer.Option("--reason", help="Why the successor exists; kept in its lineage.")],
) -> None:
    """Copy PARENT into a new draft experiment that records lineage {parent, parent_root, reason}.

    The parent is never touched. Every difference you then make is a deviation: see `sr deviations`.
    """
    from compiler.experiments import lineage_of
    from compiler.successor import new_experiment

    child = new_experiment(paths(ctx), new_id=new_id, parent_id=parent, reason=reason)
    lineage = lineage_of(child)
    if lineage is not None and lineage.parent_root is None:
        typer.echo(
            f"warning: parent {parent} is a draft (no freeze.lock): its root cannot be pinned, so the "
            f"lineage records parent_root: null; freeze {parent} first to pin it",
            err=True,
        )
    typer.echo(
        f"{child.spec_dir.relative_to(child.root)}/ and {child.catalogs_dir.relative_to(child.root)}/: "
        f"experiment {new_id}, a draft successor of {parent}. Edit it, then: "
        f"sr deviations --experiment {new_id} --update, write the rationales, sr freeze --experiment {new_id}"
    )
    from compiler.protocol_values import protocol_value_lines

    for line in protocol_value_lines():
        typer.echo(line)


@app.command("deviations")
def deviations_command(
    ctx: typer.Context,
    update: Annotated[
        bool,
        typer.Option(
            "--update",
            help="Rewrite the log: add missing differences (empty rationale), keep yours, remove the ones "
            "that no longer exist.",
        ),
    ] = False,
    experiment: ExperimentOpt = None,
) -> None:
    """Print a successor's deviations from its parent, with MISSING where a rationale is absent.

    Besides the files' differences: each condition whose canary episodes on the development surface
    behave differently from the parent's (a condition other than the gate's treatment: kind protocol).

    Exit 1 while any rationale is missing or the log lists a difference that no longer exists, or
    while the spec has a value its protocol forbids (the same file:line:col lines as sr validate).
    """
    from compiler import validate_project
    from compiler.issues import SpecValidationError
    from schemarouter.application.behaviour import full_deviation_report

    project = paths(ctx, experiment)
    try:
        validate_project(project)
    except SpecValidationError as err:
        raise fail(str(err)) from None
    report = full_deviation_report(project, update=update)
    if report is None:
        typer.echo(f"experiment {project.experiment or '(flat)'} has no parent: no deviations to declare")
        return
    for line in report.lines():
        typer.echo(line)
    if not report.complete:
        raise typer.Exit(1)


@lock_app.command("migrate")
def lock_migrate(
    ctx: typer.Context,
    reason: Annotated[str, typer.Option("--reason", help="Why; recorded in the lock's migrations.")] = "",
    experiment: ExperimentOpt = None,
) -> None:
    """Rewrite a version-1 lock as version 2, keeping its root, history and scoring record."""
    from compiler.lock_migrate import migrate_lock

    typer.echo(migrate_lock(paths(ctx, experiment), reason=reason))


@lock_app.command("pin-code")
def lock_pin_code(
    ctx: typer.Context,
    reason: Annotated[str, typer.Option("--reason", help="Why the code is pinned now (kept in the record).")],
    experiment: ExperimentOpt = None,
) -> None:
    """Annex the code record to a frozen experiment's lock: each component's implementation digest and
    its behavioural canaries on the development surface. The root and every frozen file stay as they are."""
    from schemarouter.application.code_pin import pin_code

    typer.echo(pin_code(paths(ctx, experiment), reason=reason))
