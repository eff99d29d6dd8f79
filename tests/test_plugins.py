"""A component from an installed package (issue #30, item 2): the plugin of tests/fixtures/plugins/ is
installed with pip (offline, no build isolation) into a directory of its own, so the test venv is never
changed; every command runs in a fresh process with that directory on PYTHONPATH, where the plugin's
``schemarouter.strategies`` entry point is found like any installed package's.

The draft successor 0.15 (a copy in a temp project) names the plugin's strategy in its retriever.yaml,
runs a dev pilot whose manifest records the distribution, version and digest, is frozen (the lock's
code record names the distribution), and then the plugin's installed code is edited: ``sr verify``
names the distribution.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow  # a pip build, a pilot and a freeze in fresh processes

REPO = Path(__file__).resolve().parents[1]
PLUGIN = REPO / "tests/fixtures/plugins/sr_state_values"
DISTRIBUTION = "sr-state-values"
SR = Path(sys.executable).parent / "sr"


def _install(target: Path, work: Path) -> None:
    source = work / "plugin-src"
    shutil.copytree(PLUGIN, source)  # the build writes into its source tree: never into tests/fixtures
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run(
        [*pip, "--target", str(target), str(source)],
        check=True,
        capture_output=True,
        env={**os.environ, "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )


def _project(root: Path) -> None:
    root.mkdir()
    shutil.copyfile(REPO / "schemarouter.yaml", root / "schemarouter.yaml")
    for rel in (
        "spec/0.14",
        "spec/0.15",
        "spec/_surfaces",
        "catalogs/0.14",
        "catalogs/0.15",
        "catalogs/_surfaces",
    ):
        shutil.copytree(REPO / rel, root / rel, ignore=shutil.ignore_patterns(".*", "freeze.lock"))
    shutil.copyfile(REPO / "spec/0.14/freeze.lock", root / "spec/0.14/freeze.lock")
    retriever = root / "spec/0.15/retriever.yaml"
    text = retriever.read_text(encoding="utf-8")
    head = text[: text.index("\nstrategy:\n")]
    retriever.write_text(
        head + "\nstrategy:\n  code: state_values\n  rationale: the installed plugin's strategy (test)\n",
        encoding="utf-8",
    )


def sr(env: dict[str, str], root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(SR), "--project-dir", str(root), *args], capture_output=True, text=True, env=env, check=False
    )
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def plugged(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Path, Path]:
    work = tmp_path_factory.mktemp("plugin")
    target = work / "site"
    _install(target, work)
    root = work / "project"
    _project(root)
    env = {**os.environ, "PYTHONPATH": str(target), "NO_COLOR": "1", "COLUMNS": "200"}
    return env, root, target


def test_the_plugin_strategy_is_registered_with_its_distribution(
    plugged: tuple[dict[str, str], Path, Path],
) -> None:
    env, _, _ = plugged
    probe = (
        "from runtime.retrieval.strategy import STRATEGIES\n"
        "e = STRATEGIES.entry('state_values')\n"
        "print(e.origin.module, e.origin.distribution.name, e.origin.distribution.version)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.split() == ["sr_state_values.strategy", DISTRIBUTION, "0.1.0"]
    bare = {k: v for k, v in env.items() if k != "PYTHONPATH"}
    done = subprocess.run(  # the same spec without the plugin on the path: an unknown strategy, one line
        [str(SR), "--project-dir", str(plugged[1]), "validate", "--experiment", "0.15"],
        capture_output=True,
        text=True,
        env=bare,
        check=False,
    )
    assert done.returncode == 1
    assert re.search(
        r"retriever\.yaml:\d+:\d+: strategy\.code: 'state_values' is not a registered", done.stderr
    )


def test_a_dev_pilot_then_a_freeze_record_the_plugin_and_verify_names_it_when_its_code_changes(
    plugged: tuple[dict[str, str], Path, Path],
) -> None:
    env, root, target = plugged
    scope = ["--conditions", "SR-5-STATE-AWARE,SR-5-STATIC", "--catalogs", "100", "--tasks", "two_step_state"]
    pilot = sr(env, root, "run", "--experiment", "0.15", "--surface", "dev", "--no-plots", *scope)
    assert pilot.returncode == 0, pilot.stdout + pilot.stderr
    assert "PILOT" in pilot.stdout
    run_dir = Path(re.findall(r"report: (\S+)/report\.md", pilot.stdout)[-1])
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    [plugin] = manifest["plugins"]
    assert plugin["kind"] == "retrieval strategy" and plugin["name"] == "state_values"
    assert (plugin["distribution"], plugin["version"]) == (DISTRIBUTION, "0.1.0")
    assert plugin["implementation"].startswith("sha256:")
    print(f"manifest plugins: {json.dumps(manifest['plugins'])}")

    sr(env, root, "deviations", "--experiment", "0.15", "--update")
    log = root / "spec/0.15/deviations.yaml"
    data = yaml.safe_load(log.read_text(encoding="utf-8"))
    for entry in data["deviations"]:
        entry["rationale"] = entry.get("rationale") or "test: the installed plugin's strategy"
    log.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    frozen = sr(
        env,
        root,
        *("freeze", "--experiment", "0.15", "--reason", "test: the plugin's strategy frozen"),
        *("--accept-infeasible", "test: G2 is unreachable under this protocol (sr preflight)"),
    )
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    lock = json.loads((root / "spec/0.15/freeze.lock").read_text(encoding="utf-8"))
    pins = {p["name"]: p for p in lock["code"][-1]["components"]}
    assert pins["state_values"]["distribution"] == {"name": DISTRIBUTION, "version": "0.1.0"}
    assert pins["state_values"]["module"] == "sr_state_values.strategy"
    assert all("distribution" not in p for name, p in pins.items() if name != "state_values")

    clean = sr(env, root, "verify", "--experiment", "0.15")
    assert clean.returncode == 0, clean.stdout + clean.stderr

    installed = target / "sr_state_values/strategy.py"  # the plugin's code changes after the freeze
    text = installed.read_text(encoding="utf-8")
    installed.write_text(text.replace("[query, *state_values(state_text)]", "[query]"), encoding="utf-8")
    moved = sr(env, root, "verify", "--experiment", "0.15")
    print(moved.stdout + moved.stderr)
    assert moved.returncode == 1
    assert re.search(
        rf"retrieval strategy state_values \(distribution {DISTRIBUTION} 0\.1\.0\): \d+ of \d+ canary "
        rf"rankings differ; the code of distribution {DISTRIBUTION} changed since the freeze",
        moved.stdout + moved.stderr,
    )
