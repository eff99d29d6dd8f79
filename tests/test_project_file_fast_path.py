"""The project file's plain form is taken without jsonschema (schemarouter/project_file.py), and only
when the schema would take it too: every document ``_plainly_valid`` accepts, the schema accepts; the
repository's own file takes the fast path, a command on it never imports jsonschema, and a file the
fast path declines still gets the schema's one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime.core.errors import SchemaRouterError
from schemarouter.project_file import _plainly_valid, project_schema, read_project_file

REPO = Path(__file__).resolve().parents[1]
VALIDATOR = jsonschema.Draft202012Validator(project_schema())

IDS = st.one_of(
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", fullmatch=True),
    st.text(alphabet="Aa0._-\n \u0661\u00e9/", max_size=70),  # near misses: newline, Arabic digit, é, /
)
VALUES: st.SearchStrategy[Any] = st.one_of(
    st.just(1), st.just(1.0), st.just(True), st.just(0), st.just("1"), st.none(), st.integers(), IDS
)
DOCUMENTS = st.one_of(
    st.fixed_dictionaries(
        {"project_version": VALUES, "default_experiment": VALUES},
        optional={"rationale": VALUES, "extra": VALUES, "Rationale": VALUES},
    ),
    st.dictionaries(st.sampled_from(["project_version", "default_experiment", "rationale", "x"]), VALUES),
    VALUES,
    st.lists(VALUES, max_size=2),
)


@settings(max_examples=600, derandomize=True, deadline=None)
@given(DOCUMENTS)
def test_what_the_fast_path_takes_the_schema_takes(document: Any) -> None:
    if _plainly_valid(document):
        assert VALIDATOR.is_valid(document), document


@pytest.mark.parametrize(
    ("document", "plain"),
    [
        ({"project_version": 1, "default_experiment": "0.14"}, True),
        ({"project_version": 1, "default_experiment": "0.16", "rationale": "why"}, True),
        ({"project_version": True, "default_experiment": "0.14"}, False),  # a bool is no int here
        ({"project_version": 1.0, "default_experiment": "0.14"}, False),  # the schema decides
        ({"project_version": 1, "default_experiment": "0.14\n"}, False),  # the schema decides
        ({"project_version": 1, "default_experiment": "-x"}, False),
        ({"project_version": 1, "default_experiment": "a" * 65}, False),
        ({"project_version": 1}, False),
        ({"project_version": 1, "default_experiment": "0.14", "extra": 1}, False),
        ({"project_version": 1, "default_experiment": "0.14", "rationale": 3}, False),
    ],
)
def test_the_plain_form_and_its_near_misses(document: dict[str, Any], plain: bool) -> None:
    assert _plainly_valid(document) is plain


def test_a_command_on_the_repository_never_imports_jsonschema() -> None:
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from schemarouter.project import ProjectPaths\n"
        f"paths = ProjectPaths.at(Path({str(REPO)!r}))\n"
        "print(paths.experiment, 'jsonschema' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0.14", "False"]


def test_a_declined_file_gets_the_schemas_line(tmp_path: Path) -> None:
    (tmp_path / "schemarouter.yaml").write_text('project_version: 1\ndefault_experiment: "-bad"\n')
    with pytest.raises(SchemaRouterError) as raised:
        read_project_file(tmp_path)
    assert str(raised.value).startswith("schemarouter.yaml:2:")
    assert "default_experiment" in str(raised.value)
    (tmp_path / "schemarouter.yaml").write_text('project_version: 1\ndefault_experiment: "0.16"\n')
    assert read_project_file(tmp_path).default_experiment == "0.16"
