"""``sr verify``: one experiment, or all, and optionally the locks' git history."""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.lock_history import history_problems
from compiler.run_records import record_problems
from compiler.verify import VerifyReport, verify_project
from runtime.core.errors import SchemaRouterError
from schemarouter.application.code_digest import SourceTree
from schemarouter.project import ProjectPaths, experiment_ids


@dataclass
class VerifyOutcome:
    """What verify prints, and whether everything held."""

    ok: bool = True
    lines: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def fail(self, text: str) -> None:
        self.ok = False
        self.errors.append(text)


def verify_experiments(
    paths: ProjectPaths,
    *,
    all_experiments: bool,
    history: bool,
    canaries: bool = False,
    source: SourceTree | None = None,
) -> VerifyOutcome:
    """Verify the chosen experiment (or every experiment with a lock), its code record (``canaries``:
    rerun them even when every implementation digest matches) and, with ``history``, the append-only
    record of every lock through git history. A draft's run records (pilots.yaml, confirmation.yaml)
    are checked too: their digest chain, and the entries committed at HEAD."""
    outcome = VerifyOutcome()
    targets = [paths]
    if all_experiments and paths.experiment is not None:
        targets = [paths.with_experiment(e) for e in experiment_ids(paths.root)]
    for target in targets:
        for problem in record_problems(target):
            outcome.fail(problem)
        if all_experiments and not target.lock_file.exists():
            outcome.lines.append(f"{target.lock_display}: none; experiment {target.experiment} is a draft")
            continue
        try:
            report = verify_project(target)
        except SchemaRouterError as err:
            outcome.fail(str(err))
            continue
        if report.clean:
            outcome.lines.append(report.message())
            _verify_code(outcome, target, report, canaries=canaries, source=source)
        else:
            outcome.fail(report.message())
    if history:
        commits, problems = history_problems(paths.root)
        for problem in problems:
            outcome.fail(f"history: {problem}")
        if not problems:
            outcome.lines.append(f"history: OK, {commits} commits touching spec/: every lock only grew")
    return outcome


def _verify_code(
    outcome: VerifyOutcome,
    paths: ProjectPaths,
    report: VerifyReport,
    *,
    canaries: bool,
    source: SourceTree | None,
) -> None:
    from schemarouter.application.code_pin import check_code

    try:
        check = check_code(paths, report.lock, canaries=canaries, source=source)
    except SchemaRouterError as err:
        outcome.fail(f"{paths.lock_display}: code: {err}")
        return
    outcome.lines += check.notes
    for problem in check.problems:
        outcome.fail(problem)
