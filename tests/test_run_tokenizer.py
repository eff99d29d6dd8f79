"""`sr run --tokenizer-json`: counting with a user's own tokenizer, recorded in the run's identity."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from rich.console import Console
from run_support import frozen_project

from runtime.engine.trace import EpisodeTrace, read_trace
from runtime.run.store import EpisodeStore
from schemarouter.application.run import RunDeps, RunRequest, run_experiment


def _word_tokenizer(path: Path) -> None:
    """A whitespace word-level tokenizer.json (every word one token), in the tokenizers format."""
    spec = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "WhitespaceSplit"},
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"},
    }
    path.write_text(json.dumps(spec))


def test_run_counts_with_the_users_tokenizer_and_records_it(tmp_path: Path) -> None:
    paths = frozen_project(tmp_path)
    tokenizer = tmp_path / "tokenizer.json"
    _word_tokenizer(tokenizer)
    common = {
        "conditions": "SR-5-STATIC",
        "catalogs": "100",
        "tasks": "S1-en-01",
        "workers": 1,
        "plots": False,
    }
    deps = RunDeps(console=Console(file=open(tmp_path / "out.txt", "w")))  # noqa: SIM115
    own = run_experiment(
        paths,
        RunRequest(**common, run_dir=tmp_path / "own", agent_options={"tokenizer_json": str(tokenizer)}),
        deps,
    )
    default = run_experiment(paths, RunRequest(**common, run_dir=tmp_path / "default"), deps)

    manifest = json.loads((own.run_dir / "manifest.json").read_text())
    assert manifest["agent"]["tokenizer"] == {
        "kind": "huggingface",
        "path": str(tokenizer),
        "sha256": hashlib.sha256(tokenizer.read_bytes()).hexdigest(),
    }

    def first_trace(run_dir: Path) -> EpisodeTrace:
        with EpisodeStore(run_dir, readonly=True) as store:
            (key,) = store.committed_keys()
            return read_trace(store.read_trace(key) or "{}")

    own_trace, default_trace = first_trace(own.run_dir), first_trace(default.run_dir)
    assert own_trace.tokenizer == "huggingface:tokenizer.json"
    assert default_trace.tokenizer == "tiktoken:cl100k_base"
    own_turn, default_turn = own_trace.turns[0], default_trace.turns[0]
    assert own_trace.exposed_route_ids(own_turn) == default_trace.exposed_route_ids(default_turn)
    assert own_turn.schema_tokens != default_turn.schema_tokens
