"""The development surface (spec/_surfaces/dev/) and surfaces from any intents file.

The committed dev surface equals a fresh generation (`sr surface generate --surface dev --check` and
`sr generate --check`), it never changes an experiment's catalogs, it is disjoint from every evaluation
surface, and a plan route missing from the smallest catalog is refused in one line.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from compiler.generate.surface_names import committed_named_surfaces, named_surface_out_dir
from compiler.generate.surface_only import load_named_surface
from compiler.yaml_loader import load_yaml_text
from runtime.catalog.io import load_catalog
from runtime.surface import load_surface
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths, experiment_ids

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[1]
DEV_SPEC = ROOT / "spec" / "_surfaces" / "dev"
EXAMPLE = ROOT / "tests" / "fixtures" / "surfaces" / "example"


def _yaml(path: Path):
    loaded = load_yaml_text(path.read_text(encoding="utf-8"), file=path.name)
    assert not loaded.issues, loaded.issues
    return loaded.data


def experiments_copy(tmp_path: Path, experiment: str = "0.14") -> Path:
    """An experiments-layout copy of the project: the project file, one experiment, the named surfaces."""
    root = tmp_path / "project"
    root.mkdir()
    shutil.copyfile(ROOT / "schemarouter.yaml", root / "schemarouter.yaml")
    for top in ("spec", "catalogs"):
        shutil.copytree(ROOT / top / experiment, root / top / experiment)
        shutil.copytree(ROOT / top / "_surfaces", root / top / "_surfaces")
    # Only this experiment's generated named surfaces (catalogs/_surfaces/<name>/<id>/): the copy holds
    # no other experiment.
    for generated in sorted((root / "catalogs" / "_surfaces").glob("*/*")):
        if generated.is_dir() and generated.name != experiment:
            shutil.rmtree(generated)
    return root


def _sr(*args: str):
    return CliRunner().invoke(app, list(args))


def test_committed_dev_surface_is_a_fresh_generation_and_check_catches_an_edit(tmp_path):
    root = experiments_copy(tmp_path)
    ok = _sr("--project-dir", str(root), "surface", "generate", "--surface", "dev", "--check")
    assert ok.exit_code == 0, ok.output
    assert "byte-identical" in ok.output and "180 tasks" in ok.output
    assert _sr("--project-dir", str(root), "generate", "--check").exit_code == 0
    surface = root / "catalogs" / "_surfaces" / "dev" / "0.14" / "surface.jsonl"
    text = surface.read_text(encoding="utf-8")
    surface.write_text(text.replace("WEB-", "WEB -", 1), encoding="utf-8")
    bad = _sr("--project-dir", str(root), "surface", "generate", "--surface", "dev", "--check")
    assert bad.exit_code == 1 and "surface.jsonl" in bad.output
    bad_all = _sr("--project-dir", str(root), "generate", "--check")
    assert bad_all.exit_code == 1 and "catalogs/_surfaces/dev/0.14/surface.jsonl" in bad_all.output
    fix = _sr("--project-dir", str(root), "surface", "generate", "--surface", "dev")
    assert fix.exit_code == 0 and "surface.jsonl" in fix.output
    assert surface.read_bytes() == (ROOT / "catalogs/_surfaces/dev/0.14/surface.jsonl").read_bytes()


def test_surface_generation_never_touches_the_catalogs(tmp_path):
    root = experiments_copy(tmp_path)
    before = {p.name: p.read_bytes() for p in (root / "catalogs" / "0.14").iterdir()}
    assert _sr("--project-dir", str(root), "surface", "generate", "--surface", "dev").exit_code == 0
    assert {p.name: p.read_bytes() for p in (root / "catalogs" / "0.14").iterdir()} == before


def test_dev_surface_shape_and_routes():
    settings = load_named_surface(ROOT)
    assert settings.seeds == {"surface": 71001, "world": 71002}
    experiment = _yaml(ROOT / "spec" / "0.14" / "experiment.yaml")
    assert settings.seeds["surface"] not in experiment["seeds"].values()
    assert settings.seeds["world"] not in experiment["seeds"].values()
    intents = _yaml(DEV_SPEC / "intents.yaml")["intents"]
    strata = [s["id"] for s in _yaml(ROOT / "spec" / "0.14" / "strata.yaml")["strata"]]
    languages = [lang["code"] for lang in experiment["languages"]]
    assert len(intents) >= 20
    assert {i["stratum"] for i in intents} == set(strata)
    for intent in intents:
        assert set(intent["phrasings"]) == set(languages), intent["id"]
    tasks = load_surface(ROOT / "catalogs" / "_surfaces" / "dev" / "0.14")
    cells = Counter((t.stratum, t.language) for t in tasks)
    assert len(tasks) >= 180 and len(cells) == len(strata) * len(languages)
    assert min(cells.values()) >= 6
    for size in (100, 250, 500):
        routes = set(load_catalog(ROOT / "catalogs" / "0.14", size).by_route())
        for t in tasks:
            assert {s.route_id for s in t.hidden.plan} <= routes, (t.task_id, size)


def _surface_facts(tasks, goals: dict[str, str]):
    return {
        "intent ids": {t.hidden.intent for t in tasks},
        "query texts": {t.query for t in tasks},
        "(goal, slot values) pairs": {
            json.dumps(
                [goals[t.hidden.intent], sorted(map(str, t.hidden.slots.values()))], ensure_ascii=False
            )
            for t in tasks
        },
    }


def _templates(intents) -> set[str]:
    return {text for i in intents for texts in i["phrasings"].values() for text in texts}


def test_dev_surface_is_disjoint_from_every_evaluation_surface():
    dev_intents = _yaml(DEV_SPEC / "intents.yaml")["intents"]
    dev_goals = {i["id"]: i["goal"] for i in dev_intents}
    ids = experiment_ids(ROOT)
    assert ids, "no experiment found"
    for experiment in ids:
        eval_intents = _yaml(ROOT / "spec" / experiment / "intents.yaml")["intents"]
        eval_goals = {i["id"]: i["goal"] for i in eval_intents}
        shared = {
            "intent ids (spec)": set(dev_goals) & set(eval_goals),
            "phrasing templates": _templates(dev_intents) & _templates(eval_intents),
        }
        dev_dir = ROOT / "catalogs" / "_surfaces" / "dev" / experiment
        if (dev_dir / "surface.jsonl").is_file():
            dev = _surface_facts(load_surface(dev_dir), dev_goals)
            ev = _surface_facts(load_surface(ROOT / "catalogs" / experiment), eval_goals)
            shared.update({k: dev[k] & ev[k] for k in dev})
        problems = {k: sorted(v)[:5] for k, v in shared.items() if v}
        assert not problems, (
            f"the development surface shares items with experiment {experiment}'s evaluation surface "
            f"(a dev surface must never hold evaluation material): {problems}"
        )


def test_named_surfaces_are_never_experiments_and_never_frozen():
    from compiler.frozen_files import frozen_paths

    assert "_surfaces" not in experiment_ids(ROOT)
    for experiment in experiment_ids(ROOT):
        paths = ProjectPaths.at(ROOT, experiment=experiment)
        assert not [p for p in frozen_paths(paths) if "_surfaces" in p]
        assert committed_named_surfaces(paths) == ["dev"]
        assert named_surface_out_dir(ROOT, "dev", experiment).is_relative_to(ROOT / "catalogs" / "_surfaces")


def test_a_plan_route_outside_the_smallest_catalog_is_refused_in_one_line(tmp_path):
    root = experiments_copy(tmp_path)
    catalog = root / "catalogs" / "0.14" / "catalog_100.json"
    data = json.loads(catalog.read_text(encoding="utf-8"))
    bigger = json.loads((root / "catalogs" / "0.14" / "catalog_250.json").read_text(encoding="utf-8"))
    present = {e["route_id"] for e in data["endpoints"]}
    stand_in = next(e for e in bigger["endpoints"] if e["route_id"] not in present)
    data["endpoints"] = [e for e in data["endpoints"] if e["route_id"] != "travel.airports.nearest.v2"]
    data["endpoints"].append(stand_in)  # same size, one plan route swapped for a distractor
    catalog.write_text(json.dumps(data), encoding="utf-8")
    result = _sr("--project-dir", str(root), "surface", "generate", "--surface", "dev", "--check")
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "dev_s1_nearest_airport" in lines[0] and "travel.airports.nearest.v2" in lines[0]
    assert "catalog_100" in lines[0]


def test_a_pool_the_experiment_defines_is_refused(tmp_path):
    pools = tmp_path / "pools.yaml"
    pools.write_text(
        "pools:\n  landmark: {semantic: geo.place_query, values: {all: [x]}}\n", encoding="utf-8"
    )
    result = _sr(
        "--project-dir", str(ROOT), "surface", "generate", "--intents", str(EXAMPLE / "intents.yaml"),
        "--pools", str(pools), "--seed", "1", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert result.exit_code == 1 and "pools.landmark" in result.output
    assert not (tmp_path / "out").exists()


def test_example_intents_file_generates_deterministically(tmp_path):
    args = [
        "--project-dir", str(ROOT), "surface", "generate", "--intents", str(EXAMPLE / "intents.yaml"),
        "--pools", str(EXAMPLE / "pools.yaml"), "--seed", "5", "--tag", "ex",
    ]  # fmt: skip
    first = _sr(*args, "--out", str(tmp_path / "a"))
    assert first.exit_code == 0, first.output
    second = _sr(*args, "--out", str(tmp_path / "b"))
    assert second.exit_code == 0, second.output
    a, b = (tmp_path / "a" / "surface.jsonl").read_bytes(), (tmp_path / "b" / "surface.jsonl").read_bytes()
    assert a == b
    tasks = load_surface(tmp_path / "a")
    assert len(tasks) == 180 and all("-ex-" in t.task_id for t in tasks)
    assert _sr(*args, "--out", str(tmp_path / "a"), "--check").exit_code == 0
    other = _sr(*args[:-2], "--seed", "6", "--tag", "ex", "--out", str(tmp_path / "a"), "--check")
    assert other.exit_code == 1


@pytest.mark.parametrize("missing", [["--seed", "1"], ["--out", "x"]])
def test_surface_generate_needs_its_inputs(missing):
    result = _sr(
        "--project-dir",
        str(ROOT),
        "surface",
        "generate",
        "--intents",
        str(EXAMPLE / "intents.yaml"),
        *missing,
    )
    assert result.exit_code == 1 and "--intents FILE --seed N --out DIR" in result.output


def test_every_experiment_whose_lock_pins_code_has_its_dev_surface_committed() -> None:
    """sr verify reruns a pinned experiment's canaries on its dev surface; without one it can only note
    that behaviour went unchecked, so the repository must never lose it."""
    import json
    import subprocess

    tracked = set(
        subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True).stdout.split()
    )
    pinned = [
        lock.parent.name
        for lock in sorted((ROOT / "spec").glob("*/freeze.lock"))
        if json.loads(lock.read_text(encoding="utf-8")).get("code")
    ]
    assert "0.14" in pinned
    for experiment in pinned:
        assert f"catalogs/_surfaces/dev/{experiment}/surface.jsonl" in tracked, experiment
    assert "spec/_surfaces/dev/surface.yaml" in tracked
