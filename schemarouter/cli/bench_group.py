"""The ``sr bench`` sub-command group, shared by areas that measure speed.

``sr bench run`` (run_commands) registers here; other areas may add their own (e.g. ``sr bench
retrieval``). This module creates the group, mounts it on ``sr``, and registers ``sr bench scale`` and
``sr bench anchor`` (bench_commands), so no area owns it.
Benchmarks print timings and ratios; tests never assert on them.
"""

from __future__ import annotations

import typer

bench_app = typer.Typer(
    help="Timings of the pipeline's expensive parts (printed, never asserted).",
    no_args_is_help=True,
)

# Imported after bench_app exists: importing app registers the command modules, which import
# bench_app from here, so this order works whichever module is imported first.
from schemarouter.cli.app import app  # noqa: E402

app.add_typer(bench_app, name="bench")

from schemarouter.cli import bench_commands  # noqa: E402, F401  (registers `scale` and `anchor`)
