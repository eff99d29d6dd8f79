"""Time shell commands side by side: run them alternately N times, print each one's wall and CPU
(median, min, max) and the load average before and after each round.

Odd rounds run the commands in reverse order, so that none always runs first. With exactly two
commands it also prints the ratio second/first of each round (the two ran back to back, so a drift of
the machine's speed between rounds cancels out): median, min and max, for wall and for CPU.

CPU is user + system of the command and everything it waited for (``getrusage(RUSAGE_CHILDREN)``), so
a run's worker processes and plot children count. ``RUNDIR`` in a command becomes a fresh, empty
temporary directory for each run (e.g. ``sr run --run-dir RUNDIR``).

    python3 scripts/interleave_time.py 3 "cd ../main && sr compile && sr run --run-dir RUNDIR" \\
        "sr compile && sr run --run-dir RUNDIR"
"""

from __future__ import annotations

import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def main(rounds: int, commands: list[str]) -> None:
    results: dict[str, list[tuple[float, float]]] = {c: [] for c in commands}
    loads = [load()]
    for round_no in range(rounds):
        for command in commands if round_no % 2 == 0 else commands[::-1]:
            run_dir = Path(tempfile.mkdtemp(prefix="interleave-"))
            shutil.rmtree(run_dir)  # the command creates it
            before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            subprocess.run(
                command.replace("RUNDIR", str(run_dir)),
                shell=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=True,
            )
            wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            results[command].append((wall, cpu))
            shutil.rmtree(run_dir, ignore_errors=True)
        loads.append(load())
    for command, values in results.items():
        walls, cpus = [v[0] for v in values], [v[1] for v in values]
        print(command)
        print(
            f"   wall median {statistics.median(walls):.2f} (min {min(walls):.2f}, max {max(walls):.2f}) s; "
            f"CPU median {statistics.median(cpus):.2f} (min {min(cpus):.2f}, max {max(cpus):.2f}) s"
        )
    if len(commands) == 2:
        first, second = results[commands[0]], results[commands[1]]
        for name, index in (("wall", 0), ("CPU", 1)):
            ratios = [b[index] / a[index] for a, b in zip(first, second, strict=True) if a[index] > 0]
            if not ratios:
                continue
            print(
                f"second/first per round, {name}: median {statistics.median(ratios):.3f} "
                f"(min {min(ratios):.3f}, max {max(ratios):.3f})"
            )
    print("load average (1 min) before and after each round:", " ".join(loads))


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
