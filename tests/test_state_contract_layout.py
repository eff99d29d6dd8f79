"""The state's fields come from the contract: a draft successor whose contract declares its fields in
another order (with a renamed field that names its source) validates, runs a dev pilot, and every state
in its traces has exactly the contract's fields in the contract's order, while the text the retriever
reads stays canonical (sorted keys). A contract that names an unknown kind or source, or a kind that
cannot hold its source, is refused by sr validate at the field's line. Every project is a temporary
copy (scripts/variants_successor.py widens its schemas)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
import yaml
from test_dev_surface import experiments_copy
from typer.testing import CliRunner

from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import variants_successor  # noqa: E402

EXPERIMENT = "0.15"
# The successor's fields, in its contract's order: the engine's flag first, the facts of an attempt
# next (one under a name of its own, naming its source), then the typed results' sets.
ORDER = (
    "task_incomplete",
    "attempt_count",
    "tried_route",
    "last_execution_status",
    "last_error_class",
    "missing_input_semantic_ids",
    "stable_identifiers",
    "executed_route_ids",
    "observed_units",
    "observed_semantic_ids",
    "observed_field_names",
    "observed_value_types",
)
NEW_FIELDS: dict[str, dict[str, Any]] = {
    "attempt_count": {"type": {"kind": "count"}, "description": "Tool attempts so far."},
    "tried_route": {
        "type": {"kind": "optional", "items": "route_id"},
        "source": "attempt.route_id",
        "description": "The registered route of the last attempt, executed or refused; null if none.",
    },
    "missing_input_semantic_ids": {
        "type": {"kind": "set", "items": "semantic_id"},
        "description": "The semantic IDs of the required inputs a MISSING_INPUT refusal named.",
    },
}


def _sr(root: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["--project-dir", str(root), *args], terminal_width=200)


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _write_yaml(path: Path, data: Any) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8")


def _successor(tmp: Path, edit_field: dict[str, Any] | None = None) -> Path:
    """A copy of the draft successor with the contract of ORDER (``edit_field``: laid over the entry
    of the field it names)."""
    root = experiments_copy(tmp, EXPERIMENT)
    shutil.copytree(REPO / "spec" / "0.14", root / "spec" / "0.14")  # the parent, for the deviations
    shutil.copytree(REPO / "catalogs" / "0.14", root / "catalogs" / "0.14")
    spec = root / "spec" / EXPERIMENT
    variants_successor.widen_schemas(spec)
    contract = _yaml(spec / "state_contract.yaml")
    by_name = {a["name"]: a for a in contract["allowed"]}
    by_name.update({name: {"name": name, **entry} for name, entry in NEW_FIELDS.items()})
    if edit_field is not None:
        by_name[edit_field["name"]] = {**by_name[edit_field["name"]], **edit_field}
    contract["allowed"] = [by_name[name] for name in ORDER]
    _write_yaml(spec / "state_contract.yaml", contract)
    protocol = _yaml(spec / "protocol.yaml")
    for name in NEW_FIELDS:
        protocol["state"]["allowed"].append({"name": name, "quote": f"(a test's successor) {name}"})
    _write_yaml(spec / "protocol.yaml", protocol)
    return root


@pytest.fixture(scope="module")
def successor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _successor(tmp_path_factory.mktemp("layout"))
    variants_successor._declare_deviations(root, EXPERIMENT)
    return root


def _states(run: Path) -> list[tuple[dict[str, Any], list[str]]]:
    """Each tool turn's state (as the trace stores it, key order kept) and its refreshes' texts."""
    with sqlite3.connect(run / "episodes.sqlite") as conn:
        blobs = [blob for (blob,) in conn.execute("select trace_zlib from episodes")]
    found = []
    for blob in blobs:
        turns = json.loads(zlib.decompress(blob))["turns"]
        for turn, following in zip(turns, [*turns[1:], None], strict=True):
            if turn["state_after"] is None:
                continue
            calls = following["retrieval_calls"] if following else []
            texts = [c["text"] for c in calls if c["query_kind"] == "original_plus_state"]
            found.append((turn["state_after"], texts))
    return found


def test_a_successor_with_its_own_field_order_validates_and_runs_a_pilot(successor: Path) -> None:
    result = _sr(successor, "validate", "-e", EXPERIMENT)
    assert result.exit_code == 0, result.output
    run = successor / "runs" / "pilot"
    result = _sr(
        successor, "run", "-e", EXPERIMENT, "--surface", "dev", "--draft", "--catalogs", "100",
        "--conditions", "SR-5-STATE-AWARE", "--tasks", "S2,en", "--workers", "1", "--no-plots",
        "--run-dir", str(run),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    states = _states(run)
    assert states, "the pilot recorded tool turns"
    for state, texts in states:
        assert tuple(state) == ORDER  # the contract's fields, in its order
        for text in texts:  # the retriever reads the canonical text: the same fields, keys sorted
            query_state = json.loads(text.rsplit("\n", 1)[1])
            assert list(query_state) == sorted(ORDER)
            assert query_state == state
    blocked = [s for s, _ in states if s["last_execution_status"] == "blocked"]
    executed = [s for s, _ in states if s["last_execution_status"] in ("ok", "error")]
    assert blocked and executed, "the pilot saw refused and executed attempts"
    assert all(
        not s["missing_input_semantic_ids"] for s in blocked if s["last_error_class"] != "MISSING_INPUT"
    )
    assert all(s["tried_route"] in s["executed_route_ids"] for s in executed)
    assert max(s["attempt_count"] for s, _ in states) >= 2


@pytest.mark.parametrize(
    ("field", "line_text", "expected"),
    [
        (
            {"name": "tried_route", "type": {"kind": "bag"}},
            "kind: bag",
            "allowed[2].type.kind: 'bag' is not a state field kind",
        ),
        (
            {"name": "tried_route", "source": "model.guess"},
            "source: model.guess",
            "allowed[2].source: 'model.guess' is not a state field source",
        ),
        (
            {"name": "attempt_count", "type": {"kind": "optional", "items": "route_id"}},
            "kind: optional",
            "allowed[1].type: kind optional:route_id cannot hold source attempt.count",
        ),
    ],
    ids=["unknown-kind", "unknown-source", "kind-cannot-hold-source"],
)
def test_a_bad_field_is_refused_at_its_line(
    tmp_path: Path, field: dict[str, Any], line_text: str, expected: str
) -> None:
    root = _successor(tmp_path, field)
    contract = root / "spec" / EXPERIMENT / "state_contract.yaml"
    lines = contract.read_text(encoding="utf-8").splitlines()
    if field.get("type", {}).get("kind") == "bag":
        # The schema the successor widened lists the kinds (derived from kinds.py): it refuses first.
        schema = root / "spec" / EXPERIMENT / "schema" / "state_contract.schema.json"
        widened = json.loads(schema.read_text(encoding="utf-8"))
        widened["$defs"]["field_type"]["properties"]["kind"] = {"type": "string"}
        del widened["$defs"]["field_type"]["allOf"]
        schema.write_text(json.dumps(widened), encoding="utf-8")
    if "source" in field:
        schema = root / "spec" / EXPERIMENT / "schema" / "state_contract.schema.json"
        widened = json.loads(schema.read_text(encoding="utf-8"))
        widened["$defs"]["state_field"]["properties"]["source"] = {"type": "string"}
        schema.write_text(json.dumps(widened), encoding="utf-8")
    line = next(i for i, text in enumerate(lines, 1) if line_text in text)
    result = _sr(root, "validate", "-e", EXPERIMENT, "--codes")
    assert result.exit_code == 1, result.output
    shown = [x for x in result.output.splitlines() if expected in x]
    assert shown, result.output
    assert shown[0].startswith(f"spec/{EXPERIMENT}/state_contract.yaml:{line}:"), shown[0]
    assert "Traceback" not in result.output
