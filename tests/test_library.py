"""The library face (issue #30, item 1): README.md's "From Python" session runs as written in a copy of
the project, prints only its own lines, writes nothing into a frozen experiment's folders, and reads
report.json as the pydantic ``Report`` without losing a field."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

import schemarouter
from runtime.core.errors import SchemaRouterError
from runtime.scoring.report_model import Report

pytestmark = pytest.mark.slow  # a 72-episode pilot and a retrieval evaluation

REPO = Path(__file__).resolve().parents[1]
COPIED = (
    "spec/0.14",
    "spec/0.16",
    "spec/_surfaces",
    "catalogs/0.14",
    "catalogs/0.16",
    "catalogs/_surfaces",
    "tests/fixtures/import",
)


def readme_session() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## From Python") :]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None, "README.md's From Python section has no python block"
    return match.group(1)


def _digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for top in ("spec", "catalogs")
        for p in sorted((root / top).rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object], str]:
    root = tmp_path_factory.mktemp("library") / "project"
    root.mkdir()
    shutil.copyfile(REPO / "schemarouter.yaml", root / "schemarouter.yaml")
    for rel in COPIED:
        shutil.copytree(REPO / rel, root / rel)
    before = _digests(root)
    mp = pytest.MonkeyPatch()
    mp.chdir(root)
    capture: list[str] = []
    namespace: dict[str, object] = {
        "__name__": "readme_session",
        "print": lambda *a: capture.append(" ".join(map(str, a))),
    }
    try:
        exec(compile(readme_session(), "README.md#from-python", "exec"), namespace)
    finally:
        mp.undo()
    assert _digests(root) == before, "the session wrote into spec/ or catalogs/"
    return root, namespace, "\n".join(capture)


def test_the_readme_session_runs_as_written(session: tuple[Path, dict[str, object], str]) -> None:
    _, _, printed = session
    print(printed)
    assert re.search(r"^(PASS|FAIL|NOT_EVALUABLE) 72 episodes; \(72, 72\)$", printed, re.M)
    assert "72 episodes, " in printed and " decision points" in printed
    assert printed.splitlines()[-1].startswith("51 endpoints; ")


def test_library_calls_print_nothing_of_their_own(
    session: tuple[Path, dict[str, object], str], capfd: pytest.CaptureFixture[str]
) -> None:
    root, namespace, _ = session
    run = namespace["run"]
    assert isinstance(run, schemarouter.Run)
    mp = pytest.MonkeyPatch()
    mp.chdir(root)
    try:
        capfd.readouterr()
        again = schemarouter.run(
            experiment="0.16", surface="dev", conditions=["C1"], catalogs=[100], tasks=["S1"], workers=1
        )
        schemarouter.explain(again.dir)
    finally:
        mp.undo()
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_report_reads_every_field_of_report_json(session: tuple[Path, dict[str, object], str]) -> None:
    _, namespace, _ = session
    run = namespace["run"]
    assert isinstance(run, schemarouter.Run)
    data = json.loads((run.dir / "report.json").read_text(encoding="utf-8"))
    report = Report.model_validate(data)
    assert report.data() == data
    assert report.pilot is not None and report.pilot.surface == "dev"
    assert report.scope.conditions == ("SR-PROGRESSIVE-STATIC", "SR-5-STATE-AWARE")  # spec order


def test_scope_values_are_parsed_like_the_cli_text(session: tuple[Path, dict[str, object], str]) -> None:
    root, _, _ = session
    mp = pytest.MonkeyPatch()
    mp.chdir(root)
    try:
        with pytest.raises(SchemaRouterError, match=r"--conditions: unknown condition 'C9'; valid: "):
            schemarouter.run(experiment="0.16", surface="dev", conditions=["C9"], catalogs=[100])
        with pytest.raises(
            SchemaRouterError, match=r"--catalogs: unknown catalog size '7'; valid: 100, 250, 500"
        ):
            schemarouter.run(experiment="0.16", surface="dev", conditions=["C1"], catalogs=[7])
    finally:
        mp.undo()


def test_a_directory_that_is_not_a_run_is_one_line() -> None:
    with pytest.raises(SchemaRouterError, match=r"not a run directory \(no manifest\.json\)"):
        schemarouter.load_run(REPO / "spec")


def test_the_package_re_exports_exactly_the_api_s_names() -> None:
    """``schemarouter.__all__`` is written out for type checkers and kept lazy (importing the package
    loads no engine); it must name what ``schemarouter.api`` exports, plus the error type."""
    import schemarouter
    from schemarouter import api

    assert sorted(schemarouter.__all__) == sorted([*api.__all__, "SchemaRouterError"])
    for name in api.__all__:
        assert getattr(schemarouter, name) is getattr(api, name), name
