"""A draft's run bookkeeping as a whole: pilots.yaml and confirmation.yaml.

``sr verify`` reports their chain problems, ``sr freeze`` refuses to freeze a broken chain and prints
every pilot and every confirmation, ``sr experiments`` shows the pilot counts per surface.
"""

from __future__ import annotations

from compiler.chained_log import ChainedLog, log_problems
from compiler.confirmations import CONFIRMATIONS, confirmation_lines, confirmations
from compiler.pilots import PILOTS, counts_text, pilot_counts, pilot_lines, read_pilots
from schemarouter.project import ProjectPaths

LOGS: tuple[ChainedLog, ...] = (PILOTS, CONFIRMATIONS)
# Run bookkeeping: never a design change (no deviation), never copied into a successor.
RECORD_FILES = tuple(name for log in LOGS for name in (log.file, f"schema/{log.schema_file}"))


def record_problems(paths: ProjectPaths) -> list[str]:
    """Every chain or HEAD problem of the experiment's logs."""
    return [problem for log in LOGS for problem in log_problems(paths, log)]


def record_lines(paths: ProjectPaths) -> list[str]:
    """What ``sr freeze`` prints: every recorded pilot and every confirmation."""
    pilots = read_pilots(paths)
    confirmed = confirmations(paths)
    lines = [
        f"pilots recorded before this freeze: {len(pilots)}"
        + (f" ({counts_text(pilot_counts(pilots))})" if pilots else "")
        + (f", frozen with the draft in {paths.display(PILOTS.shown)}" if pilots else "")
    ]
    lines += pilot_lines(pilots)
    lines.append(
        f"confirmations: {len(confirmed)}"
        + (f", frozen with the draft in {paths.display(CONFIRMATIONS.shown)}" if confirmed else "")
        + ("" if confirmed else " (sr confirm --surface-file F runs one)")
    )
    lines += confirmation_lines(confirmed)
    return lines
