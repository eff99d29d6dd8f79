"""Every validation problem has a stable code and a case file, sqlfluff-style.

``tests/cases/validation/<code>.yaml`` holds inputs that must fail with that code (``fail``: an edit of
a copy of the core specs, and the line and text of the expected problem) and, where a near miss is worth
pinning, inputs that must not (``pass``). The codes and their summaries are declared where they are
reported (``PROBLEMS`` in each compiler module; ``compiler/problem_codes.py`` gathers them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from spec_support import edit, line_of, make_project

from compiler import validate_project
from compiler.issues import SpecIssue, SpecValidationError
from compiler.problem_codes import problem_codes

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

CASES_DIR = Path(__file__).resolve().parent / "cases" / "validation"

# Codes whose problem no edit of the committed core specs and their schemas reaches (the schemas
# already refuse the input, or the check guards a draft an edited schema could allow): each is a
# defence in depth, shown by the test named beside it.
UNREACHED_BY_EDITS = {
    "PR102": "protocol criteria metric ids are pinned by protocol.schema.json",
    "SC103": "the contract's query item is pinned by state_contract.schema.json (const)",
    "SC107": "the query item's name is pinned by state_contract.schema.json (const)",
    "SU105": "strata fields compared with the protocol are pinned by strata.schema.json",
    "SV107": "a schema file that is JSON but not an object: no single edit of a committed schema makes one",
    "SV110": "check_schema refuses an unresolvable $ref first (SV102); kept so no traceback can escape",
    # 0.14's retriever schema has no strategy entry; a successor's may: test_retriever_strategy_spec.py.
    "RT101": "retriever.yaml is not a core spec and 0.14's schema admits no strategy",
    "RT102": "retriever.yaml is not a core spec and 0.14's schema admits no strategy",
    "RT103": "retriever.yaml is not a core spec and 0.14's schema admits no strategy",
}


def _cases() -> list[tuple[str, str, dict[str, Any]]]:
    found = []
    for path in sorted(CASES_DIR.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert doc["code"] == path.stem, path
        for kind in ("fail", "pass"):
            for index, case in enumerate(doc.get(kind, [])):
                found.append((f"{path.stem}-{kind}-{index}", kind, {**case, "code": doc["code"]}))
    return found


def _issues(tmp_path: Path, case: dict[str, Any]) -> tuple[Any, list[SpecIssue]]:
    paths = make_project(tmp_path)
    for step in case.get("edits", [case]):
        edit(paths, step["file"], step["old"], step["new"])
    try:
        validate_project(paths)
    except SpecValidationError as err:
        return paths, list(err.issues)
    return paths, []


@pytest.mark.parametrize(("case_id", "kind", "case"), _cases(), ids=[c[0] for c in _cases()])
def test_case(tmp_path: Path, case_id: str, kind: str, case: dict[str, Any]) -> None:
    paths, issues = _issues(tmp_path, case)
    with_code = [i for i in issues if i.code == case["code"]]
    if kind == "pass":
        assert with_code == [], "\n".join(map(str, with_code))
        return
    at = case.get("at", case["file"])
    line = line_of(paths, at, case["line_of"], occurrence=case.get("occurrence", 1))
    prefix = f"{at}:{line}:"
    matching = [i for i in with_code if str(i).startswith(prefix) and case["expect"] in str(i)]
    assert matching, f"no {case['code']} problem at {prefix} with {case['expect']!r} in:\n" + "\n".join(
        f"{i.code} {i}" for i in issues
    )


def test_every_code_has_a_case_file_and_every_case_file_a_code() -> None:
    codes = set(problem_codes())
    files = {p.stem for p in CASES_DIR.glob("*.yaml")}
    assert files <= codes, f"case files for unknown codes: {sorted(files - codes)}"
    missing = codes - files - set(UNREACHED_BY_EDITS)
    assert missing == set(), f"codes without a case file: {sorted(missing)}"
    assert not (set(UNREACHED_BY_EDITS) & files), "a code with a case file is no longer unreached"


def test_every_code_the_compiler_passes_is_declared() -> None:
    import re

    compiler = Path(__file__).resolve().parents[1] / "compiler"
    used = {m for p in compiler.glob("*.py") for m in re.findall(r'code="([A-Z]{2}\d{3})"', p.read_text())}
    assert used and used <= set(problem_codes())


def test_sr_validate_codes_ends_each_problem_line_with_its_code(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from schemarouter.cli.app import app

    paths = make_project(tmp_path)
    edit(paths, "spec/conditions.yaml", "      mode: cumulative", "      mode: replace")
    plain = CliRunner().invoke(app, ["--project-dir", str(paths.root), "validate"])
    coded = CliRunner().invoke(app, ["--project-dir", str(paths.root), "validate", "--codes"])
    assert plain.exit_code == coded.exit_code == 1
    line = "conditions[1].refresh.mode: policy progressive_widening is cumulative, not replace"
    assert f"{line}\n" in plain.output and f"{line} [CO109]\n" in coded.output
    assert "[CO109]" not in plain.output
