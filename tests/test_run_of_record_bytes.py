"""0.14's episodes keep their bytes: traces and per_task.jsonl of a reference sub-scope run, pinned as
the code before issue #25 wrote them (commit 3bcd769). The variants (registered policies, refresh
parameters, declarable state fields, per-condition retrievers) must leave an experiment that uses none
of them exactly as it was. DO NOT update these digests to make a change pass: a change here is a change
to 0.14's run of record. (The full run was compared too: 2700 traces and per_task.jsonl identical.)"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from pathlib import Path

import pytest
from test_dev_surface import experiments_copy
from typer.testing import CliRunner

from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

# sr run -e 0.14 --conditions SR-5-STATE-AWARE,SR-PROGRESSIVE-STATIC --catalogs 100 --tasks en
TRACES_SHA256 = "c78f95933fd4692486aa154b9f819ec8d49e01c6d60f78d8b5870208c484138f"
PER_TASK_SHA256 = "a3c0da5946d48843e2f0a86d81b7ad320e38ce1f77dfdc03b45566d4a751cfe7"


def _traces_digest(run: Path) -> str:
    """The traces in key order, without the wall-clock fields (the only ones that vary by machine)."""
    digest = hashlib.sha256()
    with sqlite3.connect(run / "episodes.sqlite") as conn:
        rows = sorted(conn.execute("select task_id, condition, catalog, trace_zlib from episodes"))
    for _task, _condition, _catalog, blob in rows:
        trace = json.loads(zlib.decompress(blob))
        trace.pop("wall_latency_ms", None)
        trace["metrics"].pop("wall_latency_ms", None)
        for turn in trace["turns"]:
            for call in turn["retrieval_calls"]:
                call.pop("latency_us", None)
        digest.update(json.dumps(trace, sort_keys=True, ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest()


def test_0_14_traces_and_per_task_rows_are_byte_identical(tmp_path: Path) -> None:
    root = experiments_copy(tmp_path, "0.14")
    run = root / "runs" / "sub"
    result = CliRunner().invoke(
        app,
        [
            "--project-dir", str(root), "run", "-e", "0.14",
            "--conditions", "SR-5-STATE-AWARE,SR-PROGRESSIVE-STATIC", "--catalogs", "100",
            "--tasks", "en", "--workers", "1", "--no-plots", "--run-dir", str(run),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert _traces_digest(run) == TRACES_SHA256
    assert hashlib.sha256((run / "per_task.jsonl").read_bytes()).hexdigest() == PER_TASK_SHA256
