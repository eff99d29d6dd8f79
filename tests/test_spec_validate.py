"""Validation as a whole: the committed specs are valid, several problems are reported together and in
order, and file-level problems (syntax, tags, missing or misplaced files, schemas). The real spec/ is
never modified: each test edits a temporary copy."""

from __future__ import annotations

from spec_support import REPO, edit, find_line, line_of, make_project, validation_lines, write

from compiler import validate_project
from compiler.spec_files import CORE_SPEC_NAMES
from schemarouter.project import ProjectPaths

SC, CO, ST, EX, ME, GA = (
    "spec/state_contract.yaml",
    "spec/conditions.yaml",
    "spec/strata.yaml",
    "spec/experiment.yaml",
    "spec/metrics.yaml",
    "spec/gates.yaml",
)
NEW_FIELD = (
    "  - name: {name}\n    type: {{kind: boolean}}\n    description: smuggled\n  - name: task_incomplete"
)
STATE_AWARE_REFRESH = (
    "max_per_tool_turn: 1\n      max_per_episode: 5\n      k_per_refresh: 5\n      mode: replace"
)
ORACLE = (
    "  - id: ORACLE\n    code: C5\n    policy: oracle_required_routes\n    retrieval_query: none\n"
    "    description: Exactly the task's required routes (every route its gold plan may need); "
    "no retrieval.\n"
)
RECALL_APPLIES = "applies_to: [SR-5-STATIC, SR-PROGRESSIVE-STATIC, SR-5-STATE-AWARE]"

# The problem-by-problem cases are tests/cases/validation/<code>.yaml (tests/test_validation_cases.py).


def test_the_committed_core_specs_are_valid(tmp_path) -> None:
    paths = make_project(tmp_path)
    assert validate_project(paths).names == sorted(CORE_SPEC_NAMES)


def test_the_repository_specs_are_valid() -> None:
    """Every spec file of the repository, the other areas' included, validates."""
    assert set(CORE_SPEC_NAMES) <= set(validate_project(ProjectPaths.at(REPO)).names)


def test_duplicate_key_type_error_and_unknown_key_in_one_run(tmp_path) -> None:
    paths = make_project(tmp_path)
    edit(
        paths,
        CO,
        "    policy: static_topk\n    retrieval_query: original\n    initial_k: 5\n",
        "    policy: static_topk\n    retrieval_query: original\n    initial_k: five\n    colour: blue\n"
        "    policy: full_catalog\n",
    )
    lines = validation_lines(paths)
    assert lines == [
        f"{CO}:8:16: conditions[0].initial_k: 'five' is not of type 'integer'",
        f"{CO}:9:5: conditions[0].colour: unknown key 'colour' (expected one of: code, description, id, "
        "initial_k, policy, rationale, refresh, retrieval_query)",
        f"{CO}:10:5: conditions[0].policy: duplicate key 'policy' (first at line 6); "
        "this occurrence is ignored",
    ]


def test_commented_out_forbidden_item_is_reported_missing(tmp_path) -> None:
    paths = make_project(tmp_path)
    edit(
        paths,
        SC,
        "  - id: condition_name\n    description: The name of the experimental condition.\n"
        "    aliases: [condition_id, experimental_condition]\n",
        "  # - id: condition_name\n  #   description: The name of the experimental condition.\n"
        "  #   aliases: [condition_id, experimental_condition]\n",
    )
    line = line_of(paths, SC, "forbidden:")
    assert validation_lines(paths) == [
        f"{SC}:{line}:1: forbidden: forbidden item 'condition_name' (the condition name) is missing"
    ]


def test_problems_of_several_files_are_all_reported_in_order(tmp_path) -> None:
    paths = make_project(tmp_path)
    edit(paths, GA, "threshold: 0.97", "threshold: 0.95")
    edit(paths, ST, "tasks_per_cell: 6", "tasks_per_cell: 7")
    edit(paths, EX, "seed: 20260929", "seed: 1")
    lines = validation_lines(paths)
    assert [line.split(":")[0] for line in lines] == [EX, GA, ST, ST]


def test_syntax_error_reports_the_line_and_skips_the_file(tmp_path) -> None:
    paths = make_project(tmp_path)
    edit(paths, GA, "treatment: SR-5-STATE-AWARE", "treatment: [SR-5-STATE-AWARE")
    lines = validation_lines(paths)
    assert len(lines) == 1 and lines[0].startswith(f"{GA}:4:") and "not valid YAML" in lines[0]


def test_tags_and_anchors_in_a_spec_are_rejected(tmp_path) -> None:
    paths = make_project(tmp_path)
    edit(paths, GA, "interval: bootstrap", "interval: !!python/object:os.system bootstrap")
    edit(paths, ST, "tasks_per_cell: 6", "tasks_per_cell: &n 6")
    lines = validation_lines(paths)
    find_line(
        lines, f"{GA}:6:", "interval: tag 'tag:yaml.org,2002:python/object:os.system' is not plain data"
    )
    find_line(lines, f"{ST}:3:", "anchor &n: anchors and aliases are not allowed")


def test_spec_file_without_schema(tmp_path) -> None:
    paths = make_project(tmp_path)
    write(paths, "spec/extra.yaml", "a: 1\n")
    assert validation_lines(paths) == [
        "spec/extra.yaml:1:1: no schema: every spec file needs spec/schema/extra.schema.json"
    ]


def test_schema_without_spec_file(tmp_path) -> None:
    paths = make_project(tmp_path)
    write(
        paths, "spec/schema/extra.schema.json", '{"$schema": "https://json-schema.org/draft/2020-12/schema"}'
    )
    assert validation_lines(paths) == [
        "spec/schema/extra.schema.json:1:1: schema without a spec file: spec/extra.yaml does not exist"
    ]


def test_misplaced_and_misnamed_spec_files(tmp_path) -> None:
    paths = make_project(tmp_path)
    write(paths, "spec/extra.yml", "a: 1\n")
    write(paths, "spec/more/extra.yaml", "a: 1\n")
    assert validation_lines(paths) == [
        "spec/extra.yml:1:1: spec files end in .yaml, not .yml",
        "spec/more/extra.yaml:1:1: spec files live directly in spec/",
    ]


def test_missing_core_spec_file(tmp_path) -> None:
    paths = make_project(tmp_path, names=tuple(n for n in CORE_SPEC_NAMES if n != "gates"))
    assert validation_lines(paths) == ["spec/gates.yaml:1:1: missing: every experiment has this spec file"]


def test_schema_of_another_draft_or_invalid_is_reported(tmp_path) -> None:
    paths = make_project(tmp_path)
    write(paths, "spec/extra.yaml", "a: 1\n")
    write(
        paths,
        "spec/schema/extra.schema.json",
        '{\n  "$schema": "http://json-schema.org/draft-07/schema#"\n}\n',
    )
    assert validation_lines(paths) == [
        'spec/schema/extra.schema.json:2:3: $schema: "$schema" must be '
        '"https://json-schema.org/draft/2020-12/schema"'
    ]
    write(
        paths,
        "spec/schema/extra.schema.json",
        '{\n  "$schema": "https://json-schema.org/draft/2020-12/schema",\n  "type": "objekt"\n}\n',
    )
    find_line(validation_lines(paths), "spec/schema/extra.schema.json:3:", "type: 'objekt' is not valid")


def test_any_area_spec_file_is_validated_by_its_own_schema(tmp_path) -> None:
    paths = make_project(tmp_path)
    write(
        paths,
        "spec/schema/extra.schema.json",
        '{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",\n'
        ' "additionalProperties": false, "properties": {"depth": {"type": "integer", "minimum": 1}}}\n',
    )
    write(paths, "spec/extra.yaml", "# an area's spec\ndepth: 0\n")
    assert validation_lines(paths) == ["spec/extra.yaml:2:8: depth: 0 is less than the minimum of 1"]
    write(paths, "spec/extra.yaml", "depth: 3\n")
    assert "extra" in validate_project(paths).names


def test_empty_spec_file_is_a_type_error(tmp_path) -> None:
    paths = make_project(tmp_path)
    write(paths, GA, "# nothing here\n")
    assert validation_lines(paths) == [f"{GA}:1:1: None is not of type 'object'"]
