"""Experiments as data: several experiments in one project, successors with lineage and declared
deviations, and a lock that cannot be quietly rewritten.

Every project here is a copy of the repository's experiments layout under tmp_path (schemarouter.yaml,
spec/0.14/, catalogs/0.14/); the real files are never touched.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compiler.lock_history import history_problems
from runtime.core.errors import SchemaRouterError
from runtime.spec_model.lock import content_digest
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

REPO = Path(__file__).resolve().parents[1]
ROOT_OF_RECORD = "9a0b61552a9070cdb972958dacde6a6cdfc8cf37af25205a2561c767610d3580"
RUN_OF_RECORD = "20261130T124110Z-reference-9099e1bb"
BOOST_OLD = "  - {id: summary_en, sources: [summary, summaries.en], analyzer: stem_en, boost: 2.0}"
BOOST_NEW = BOOST_OLD.replace("boost: 2.0", "boost: 3.0")
BOOST_CHANGE = "spec/retriever.yaml: retriever.fields[summary_en].boost: 2.0 -> 3.0"
runner = CliRunner()


def _copy_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    shutil.copyfile(REPO / "schemarouter.yaml", root / "schemarouter.yaml")
    for top in ("spec", "catalogs"):
        shutil.copytree(REPO / top / "0.14", root / top / "0.14", ignore=shutil.ignore_patterns(".*"))
    return root


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def _git_project(tmp_path: Path) -> Path:
    root = _copy_project(tmp_path)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "0.14 as recorded")
    return root


def sr(root: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["--project-dir", str(root), *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def _lock(root: Path, experiment: str = "0.14") -> Path:
    return root / "spec" / experiment / "freeze.lock"


def _rewrite_lock(path: Path, edit, *, reseal: bool) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    if reseal:
        data["lock_digest"] = content_digest(data).model_dump()
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def successor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project holding 0.14 and a draft successor 0.15 (one shared copy: ~4 s to make)."""
    root = _copy_project(tmp_path_factory.mktemp("successor"))
    code, output = sr(root, "experiment", "new", "0.15", "--from", "0.14", "--reason", "a heavier boost")
    assert code == 0, output
    return root


def test_the_experiment_of_record_verifies_at_its_recorded_root() -> None:
    code, output = sr(REPO, "verify")
    assert code == 0, output
    assert ROOT_OF_RECORD in output and f"scoring started with run {RUN_OF_RECORD}" in output
    code, output = sr(REPO, "experiments")
    assert code == 0
    assert output.splitlines()[0].split()[:4] == ["*", "0.14", "scoring", "started"]
    assert ROOT_OF_RECORD[:12] in output


def test_successor_round_trip(successor: Path, tmp_path: Path) -> None:
    root = tmp_path / "round-trip"
    shutil.copytree(successor, root)
    parent_lock = _lock(root).read_bytes()
    lineage = (root / "spec" / "0.15" / "lineage.yaml").read_text(encoding="utf-8")
    assert "parent: '0.14'" in lineage and f"parent_root: {ROOT_OF_RECORD}" in lineage
    code, output = sr(root, "experiments")
    assert "0.15       draft" in output and "parent 0.14 at 9a0b61552a90: a heavier boost" in output

    retriever = root / "spec" / "0.15" / "retriever.yaml"
    retriever.write_text(
        retriever.read_text(encoding="utf-8").replace(BOOST_OLD, BOOST_NEW), encoding="utf-8"
    )
    code, output = sr(root, "freeze", "--experiment", "0.15", "--reason", "for review")
    assert code == 1
    assert f"spec/0.15/deviations.yaml: MISSING rationale: {BOOST_CHANGE}" in output
    assert not _lock(root, "0.15").exists()

    code, output = sr(root, "deviations", "--experiment", "0.15", "--update")
    assert code == 1 and "rationale: MISSING" in output
    log = root / "spec" / "0.15" / "deviations.yaml"
    text = log.read_text(encoding="utf-8")
    marker = f"- change: '{BOOST_CHANGE}'\n  kind: spec\n  rationale: ''"
    assert marker in text
    log.write_text(text.replace(marker, marker[:-2] + "Summaries name the capability."), encoding="utf-8")
    code, output = sr(root, "deviations", "-e", "0.15")
    assert code == 0 and "MISSING" not in output and "Summaries name the capability." in output

    code, output = sr(root, "freeze", "--experiment", "0.15", "--reason", "for review")
    assert code == 0, output
    code, output = sr(root, "verify", "--all")
    assert code == 0, output
    assert (
        f"spec/0.14/freeze.lock: OK, experiment 0.14: 34 files match root sha256:{ROOT_OF_RECORD}" in output
    )
    assert "spec/0.15/freeze.lock: OK, experiment 0.15" in output
    assert _lock(root).read_bytes() == parent_lock
    code, output = sr(root, "experiments")
    assert "0.15       frozen" in output


def test_a_deviation_that_no_longer_exists_is_refused(successor: Path, tmp_path: Path) -> None:
    root = tmp_path / "stale"
    shutil.copytree(successor, root)
    log = root / "spec" / "0.15" / "deviations.yaml"
    log.write_text(
        log.read_text(encoding="utf-8")
        + f"- change: '{BOOST_CHANGE}'\n  kind: spec\n  rationale: written before the change was undone\n",
        encoding="utf-8",
    )
    code, output = sr(root, "freeze", "-e", "0.15", "--reason", "x")
    assert code == 1
    assert f"STALE entry (no longer a difference): {BOOST_CHANGE}" in output


def test_the_successor_fixes_the_known_hash_id_defect_as_a_declared_deviation(successor: Path) -> None:
    code, output = sr(successor, "deviations", "-e", "0.15")
    assert code == 0, output
    assert 'spec/generator.yaml: generator.scalar_reading: added "yaml-1.2-core"' in output
    assert "catalogs/catalog_500.json: 2 route_ids changed (travel.flights.offers.search.v2" in output
    parent = json.loads((REPO / "catalogs" / "0.14" / "catalog_500.json").read_text(encoding="utf-8"))
    child = json.loads((successor / "catalogs" / "0.15" / "catalog_500.json").read_text(encoding="utf-8"))

    def offer_op(catalog: dict) -> object:
        routes = catalog["endpoints"]
        route = next(r for r in routes if r["route_id"] == "travel.flights.offers.search.v2")
        return json.dumps(route, sort_keys=True)

    assert '"hash_id": false' in offer_op(parent)  # 0.14 as recorded: the defect, kept
    assert '"hash_id": "off"' in offer_op(child)
    assert sr(REPO, "generate", "--check")[0] == 0


def test_lock_digest_catches_a_hand_edit(tmp_path: Path) -> None:
    root = _copy_project(tmp_path)
    _rewrite_lock(_lock(root), lambda d: d.update(scoring_started=None), reseal=False)
    code, output = sr(root, "verify")
    assert code == 1 and "lock_digest does not match the lock's content" in output
    code, output = sr(root, "freeze", "--reason", "tune after scoring")
    assert code == 1


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (lambda d: d.update(scoring_started=None), f"scoring_started: the record of run {RUN_OF_RECORD}"),
        (lambda d: d["scoring_started"].update(run_id="other-run"), "scoring_started: rewritten"),
        (lambda d: d["history"].pop(0), "history: freeze 1"),
        (lambda d: d["history"][0].update(reason="edited"), "history: freeze 1 (root"),
    ],
    ids=["scoring-removed", "run-id-edited", "freeze-removed", "freeze-rewritten"],
)
def test_a_resealed_tamper_is_named_against_head(tmp_path: Path, edit, named: str) -> None:
    root = _git_project(tmp_path)
    _rewrite_lock(_lock(root), edit, reseal=True)
    code, output = sr(root, "verify")
    assert code == 1
    assert "spec/0.14/freeze.lock: against HEAD: " in output and named in output


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (lambda d: d.update(frozen_at="2020-01-01T00:00:00Z"), "differ from the latest history entry"),
        (lambda d: d["git"].update(commit="0" * 40), "differ from the latest history entry"),
        (lambda d: d.update(experiment_id="0.99"), "experiment_id '0.99' is not experiment.yaml's '0.14'"),
        (
            lambda d: d["catalog_items"]["catalogs/catalog_100.json"]["items"].update(
                {"geo.geocode.forward.v2": "0"}
            ),
            "catalog_items of catalogs/catalog_100.json do not match the frozen file",
        ),
    ],
    ids=["frozen_at", "git", "experiment_id", "catalog_items"],
)
def test_lock_metadata_edits_are_named_even_when_resealed(tmp_path: Path, edit, named: str) -> None:
    root = _copy_project(tmp_path)
    _rewrite_lock(_lock(root), edit, reseal=True)
    code, output = sr(root, "verify")
    assert code == 1 and named in output


def test_restoring_an_older_lock_is_refused_and_history_names_the_commit(tmp_path: Path) -> None:
    root = _git_project(tmp_path)
    _rewrite_lock(_lock(root), lambda d: d.update(scoring_started=None), reseal=True)
    assert sr(root, "verify")[0] == 1
    _git(root, "commit", "-q", "-am", "quietly drop the scoring record")
    bad = _git(root, "rev-parse", "HEAD").strip()
    assert sr(root, "verify")[0] == 0  # HEAD now agrees with itself: only history can tell
    code, output = sr(root, "verify", "--history")
    assert code == 1
    assert (
        f"history: {bad[:12]}: spec/0.14/freeze.lock: scoring_started: the record of run {RUN_OF_RECORD}"
        in (output)
    )
    commits, problems = history_problems(root)
    assert commits == 2 and len(problems) == 1


def test_history_follows_the_move_from_the_flat_layout(tmp_path: Path) -> None:
    root = tmp_path / "flat"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    (root / "spec").mkdir()
    lock = {"lock_version": 1, "root": {"algorithm": "sha256", "digest": "a" * 64}, "history": []}
    (root / "spec" / "experiment.yaml").write_text('id: "0.9"\n', encoding="utf-8")
    (root / "spec" / "freeze.lock").write_text(json.dumps(lock), encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "flat")
    (root / "spec" / "0.9").mkdir()
    _git(root, "mv", "spec/experiment.yaml", "spec/freeze.lock", "spec/0.9/")
    (root / "schemarouter.yaml").write_text(
        'project_version: 1\ndefault_experiment: "0.9"\n', encoding="utf-8"
    )
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "moved")
    assert history_problems(root) == (2, [])
    moved = json.loads((root / "spec" / "0.9" / "freeze.lock").read_text(encoding="utf-8"))
    moved["root"]["digest"] = "b" * 64
    (root / "spec" / "0.9" / "freeze.lock").write_text(json.dumps(moved), encoding="utf-8")
    _git(root, "commit", "-q", "-am", "rewrite the root")
    commits, problems = history_problems(root)
    assert commits == 3 and len(problems) == 1 and "a root no freeze in history made" in problems[0]


def test_hidden_and_linked_files_are_refused(tmp_path: Path) -> None:
    root = _copy_project(tmp_path)
    spec = root / "spec" / "0.14"
    (spec / ".x.yaml").write_text("secret: 1\n", encoding="utf-8")
    (spec / "schema" / ".x.schema.json").write_text("{}", encoding="utf-8")
    code, output = sr(root, "compile")
    assert code == 1 and "spec/0.14/.x.yaml:1:1: a hidden spec file" in output
    (spec / ".x.yaml").unlink()
    (spec / "schema" / ".x.schema.json").unlink()
    outside = tmp_path / "outside.yaml"
    outside.write_text("password: hunter2\n", encoding="utf-8")
    (spec / "extra.yaml").symlink_to(outside)
    for command in ("verify", "compile", "validate"):
        code, output = sr(root, command)
        assert code == 1, command
        assert "hunter2" not in output and "spec/0.14/extra.yaml" in output and "a symlink" in output


def test_experiment_option_and_project_file_errors_are_one_line(tmp_path: Path) -> None:
    root = _copy_project(tmp_path)
    code, output = sr(root, "verify", "--experiment", "0.99")
    assert code == 1 and output.strip() == "unknown experiment '0.99' (experiments: 0.14)"
    code, output = sr(root, "verify", "--experiment", "../x")
    assert code == 1 and "experiment id '../x' is not valid" in output
    (root / "schemarouter.yaml").write_text("default_experiment: [1]\n", encoding="utf-8")
    code, output = sr(root, "verify")
    assert code == 1 and output.startswith("schemarouter.yaml:1:1:")
    with pytest.raises(SchemaRouterError, match="takes no --experiment"):
        ProjectPaths.at(tmp_path, experiment="0.14")


def test_experiment_new_refuses_an_existing_id_and_leaves_nothing_half_made(successor: Path) -> None:
    before = sorted(p.name for p in (successor / "spec").iterdir())
    code, output = sr(successor, "experiment", "new", "0.15", "--from", "0.14", "--reason", "again")
    assert code == 1 and "spec/0.15: already exists" in output
    code, output = sr(successor, "experiment", "new", "0.16", "--from", "0.99", "--reason", "x")
    assert code == 1 and "unknown parent experiment '0.99'" in output
    assert sorted(p.name for p in (successor / "spec").iterdir()) == before


# Values only 0.14's protocol states: none may be a literal of the packages' code (docstrings aside).
PROTOCOL_CONSTANTS: tuple[object, ...] = (
    "0.14",
    "#431",
    20260929,
    "SR-5-STATIC",
    "SR-PROGRESSIVE-STATIC",
    "SR-5-STATE-AWARE",
    "future_required_route_ids",
    "gold_next_route_id",
    "hidden_expected_answer",
)
# Not listed: stratum, metric and policy ids, which are also the codes of what the code implements
# (plan shapes, metric functions, exposure policies), and docstrings, which may name examples.


def _code_literals(path: Path) -> set[object]:
    """Every constant in a module's code (docstrings left out), and the protocol strings inside them."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    # Field(description="... e.g. '0.14'") documents a model with an example: docs, like a docstring.
    docstrings |= {
        id(sub)
        for node in ast.walk(tree)
        if isinstance(node, ast.keyword) and node.arg == "description"
        for sub in ast.walk(node.value)
    }
    found: set[object] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and id(node) not in docstrings:
            found.add(node.value)
            if isinstance(node.value, str):
                found.update(c for c in PROTOCOL_CONSTANTS if isinstance(c, str) and c in node.value)
    return found


@pytest.mark.parametrize("package", ["compiler", "schemarouter", "runtime"])
def test_no_protocol_constant_of_0_14_in_python(package: str) -> None:
    """The protocol is data (spec/<id>/protocol.yaml): no protocol constant of 0.14 is code."""
    offenders = [
        f"{path.relative_to(REPO)}: {constant!r}"
        for path in sorted((REPO / package).rglob("*.py"))
        for constant in sorted(_code_literals(path) & set(PROTOCOL_CONSTANTS), key=str)
    ]
    assert offenders == []
    assert not (REPO / "compiler" / "seed_facts.py").exists()


def test_a_successor_runs_on_its_own_files_and_names_its_lineage(successor: Path, tmp_path: Path) -> None:
    from runtime.run import load_result_set, read_manifest
    from runtime.run.resultset import read_terminal_outcomes
    from schemarouter.application.run import RunRequest, run_experiment

    root = tmp_path / "run"
    shutil.copytree(successor, root)
    surface = root / "catalogs" / "0.15" / "surface.jsonl"
    lines = surface.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    marker = "(asked of the successor only)"
    first["query"] = f"{first['query']} {marker}"
    surface.write_text(
        "\n".join([json.dumps(first, ensure_ascii=False), *lines[1:]]) + "\n", encoding="utf-8"
    )
    request = RunRequest(
        conditions="SR-5-STATIC",
        catalogs="100",
        tasks=first["task_id"],
        workers=1,
        allow_draft=True,
        plots=False,
    )
    outcome = run_experiment(ProjectPaths.at(root, experiment="0.15"), request)
    assert outcome.exit_code == 0
    manifest = read_manifest(outcome.run_dir)
    assert manifest.experiment_id == "0.15"
    assert manifest.lineage is not None and manifest.lineage["parent"] == "0.14"
    assert manifest.lineage["deviations"] >= 2
    stored = read_terminal_outcomes(load_result_set([outcome.run_dir]), with_traces=True)
    assert len(stored) == 1 and marker in (stored[0].trace_json or "")
    assert _lock(root).read_bytes() == _lock(successor).read_bytes()  # the parent's record is untouched
