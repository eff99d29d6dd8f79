"""Every validation error path, each reported at its file:line.

Each case edits a temporary copy of the real core specs and checks that validation names the right
file and line with the right message. The real spec/ is never modified.
"""

from __future__ import annotations

import pytest
from spec_support import REPO, edit, find_line, line_of, make_project, validation_lines, write

from schemarouter.compiler import validate_project
from schemarouter.compiler.spec_files import CORE_SPEC_NAMES
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

# (file, old, new, line needle in the edited file, occurrence of the needle, message fragment)
CASES = [
    # state contract
    (
        SC,
        "  - name: task_incomplete",
        NEW_FIELD.format(name="rank"),
        "- name: rank",
        1,
        "allowed[8].name: 'rank' is both allowed and forbidden (forbidden item 'schemarouter_rank')",
    ),
    (
        SC,
        "  - name: task_incomplete",
        NEW_FIELD.format(name="foo"),
        "- name: foo",
        1,
        "allowed[8].name: state field 'foo' is not one of the protocol's allowed items",
    ),
    (
        SC,
        "- name: task_incomplete",
        "- name: task_done",
        "allowed:",
        1,
        "allowed: the protocol's state field 'task_incomplete' is missing",
    ),
    (
        SC,
        "aliases: [future_routes,",
        "aliases: [gold_next_route_id, future_routes,",
        "gold_next_route_id,",
        1,
        "alias 'gold_next_route_id' already names forbidden item 'gold_next_route_id'",
    ),
    (
        SC,
        '"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"',
        '"[A-Za-z0-9]+"',
        "identifier_pattern",
        1,
        "identifier_pattern: must be anchored with ^ and $",
    ),
    (
        SC,
        '"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"',
        '"^[a-z$"',
        "identifier_pattern",
        1,
        "identifier_pattern: not a valid regular expression",
    ),
    (
        SC,
        "applies_to: [SR-5-STATE-AWARE]",
        "applies_to: [SR-5-STATE-AWARE, SR-5-STATIC]",
        "applies_to:",
        1,
        "serialization.applies_to[1]: condition 'SR-5-STATIC' does not retrieve with original_plus_state",
    ),
    (
        SC,
        "applies_to: [SR-5-STATE-AWARE]",
        "applies_to: [SR-5-STATE-AWARE, SR-9]",
        "applies_to:",
        1,
        "serialization.applies_to[1]: unknown condition 'SR-9'",
    ),
    (
        SC,
        "applies_to: [SR-5-STATE-AWARE]",
        "applies_to: [SR-5-STATIC]",
        "applies_to:",
        1,
        "condition 'SR-5-STATE-AWARE' retrieves with original_plus_state but is not listed",
    ),
    # conditions
    (
        CO,
        STATE_AWARE_REFRESH,
        STATE_AWARE_REFRESH.replace("episode: 5", "episode: 7"),
        "max_per_episode: 7",
        1,
        "conditions[2].refresh.max_per_episode: 7 is greater than 5 "
        "(the protocol allows at most 5 refreshes per episode)",
    ),
    (
        CO,
        STATE_AWARE_REFRESH,
        STATE_AWARE_REFRESH.replace("turn: 1", "turn: 2"),
        "max_per_tool_turn: 2",
        1,
        "conditions[2].refresh.max_per_tool_turn: 2 is greater than 1",
    ),
    (
        CO,
        "k_per_refresh: 5\n      mode: cumulative",
        "k_per_refresh: 6\n      mode: cumulative",
        "k_per_refresh: 6",
        1,
        "conditions[1].refresh.k_per_refresh: 6 is greater than 5 "
        "(the protocol allows at most 5 capabilities per refresh)",
    ),
    (
        CO,
        "initial_k: 5\n    description: One",
        "initial_k: 10\n    description: One",
        "initial_k: 10",
        1,
        "conditions[0].initial_k: 10 differs from the protocol's start at the top 5",
    ),
    (
        CO,
        "  max_refresh_per_episode: 5",
        "  max_refresh_per_episode: 6",
        "max_refresh_per_episode: 6",
        1,
        "limits.max_refresh_per_episode: 6 differs from the protocol's 5",
    ),
    (
        CO,
        "policy: full_catalog\n    retrieval_query: none",
        "policy: full_catalog\n    retrieval_query: none\n    initial_k: 5",
        "initial_k: 5",
        4,
        "conditions[3].initial_k: policy full_catalog does not rank",
    ),
    (
        CO,
        "policy: static_topk\n    retrieval_query: original",
        "policy: static_topk\n    retrieval_query: original_plus_state",
        "retrieval_query: original_plus_state",
        1,
        "conditions[0].retrieval_query: policy static_topk retrieves with 'original', "
        "not 'original_plus_state'",
    ),
    (CO, ORACLE, "", "conditions:", 1, "conditions: the protocol's condition 'ORACLE' is missing"),
    (
        CO,
        "id: FULL",
        "id: EVERYTHING",
        "id: EVERYTHING",
        1,
        "conditions[3].id: 'EVERYTHING' is not one of the protocol's conditions",
    ),
    (
        CO,
        "code: C5",
        "code: C4",
        "code: C4",
        2,
        "conditions[4].code: duplicate condition code 'C4' (also conditions[3])",
    ),
    (
        CO,
        "max_per_episode: 5\n      k_per_refresh: 5\n      mode: cumulative",
        "max_per_episode: 4\n      k_per_refresh: 5\n      mode: cumulative",
        "max_per_episode: 5",
        1,
        "conditions[2].refresh.max_per_episode: 5 differs from SR-PROGRESSIVE-STATIC's 4",
    ),
    # strata and experiment
    (
        ST,
        "tasks_per_cell: 6",
        "tasks_per_cell: 7",
        "tasks_per_cell",
        1,
        "tasks_per_cell: 7 tasks per cell x 5 strata x 6 languages = 210, not the protocol's 180 tasks",
    ),
    (
        ST,
        "tasks_per_cell: 6",
        "tasks_per_cell: 7",
        "tasks_per_cell",
        1,
        "tasks_per_cell: 7 differs from the protocol's 6",
    ),
    (
        EX,
        "  - {code: zh, name: Chinese, script: Han, analyzer: cjk_ngram}\n",
        "",
        "languages:",
        1,
        "languages: 5 languages; the protocol has 6",
    ),
    (
        ST,
        "error_classes: [AUTH_EXPIRED, NOT_FOUND]",
        "error_classes: [AUTH_EXPIRED, TIMEOUT]",
        "TIMEOUT",
        1,
        "strata[2].generation.error_classes[1]: 'TIMEOUT' is not an error class of the state contract",
    ),
    (
        ST,
        "id: two_step_state",
        "id: two_steps",
        "id: two_steps",
        1,
        "strata[0].id: 'two_steps' is not one of the protocol's strata",
    ),
    (
        ST,
        "id: two_step_state",
        "id: two_steps",
        "strata:",
        1,
        "strata: the protocol's stratum 'two_step_state' is missing",
    ),
    (EX, 'id: "0.14"', 'id: "0.15"', "id:", 1, "id: '0.15' differs from the protocol's '0.14'"),
    (
        EX,
        "catalog_sizes: [100, 250, 500]",
        "catalog_sizes: [100, 250, 1000]",
        "catalog_sizes",
        1,
        "catalog_sizes: [100, 250, 1000] differs from the protocol's [100, 250, 500]",
    ),
    (
        EX,
        "iterations: 10000",
        "iterations: 1000",
        "iterations",
        1,
        "bootstrap.iterations: 1000 differs from the protocol's 10000",
    ),
    (EX, "seed: 20260929", "seed: 1", "seed: 1", 1, "bootstrap.seed: 1 differs from the protocol's 20260929"),
    (
        EX,
        "{code: de, name: German",
        "{code: en, name: German",
        "German",
        1,
        "languages[2].code: duplicate language 'en' (also languages[0])",
    ),
    (
        EX,
        "role: rendering",
        "role: original",
        "seed_documents",
        1,
        "provenance.seed_documents: exactly one seed document has role original (found 2)",
    ),
    # metrics
    (
        ME,
        RECALL_APPLIES,
        RECALL_APPLIES.replace("]", ", SR-X]"),
        "SR-X",
        1,
        "metrics[1].applies_to[3]: unknown condition 'SR-X'",
    ),
    (
        ME,
        "    denominator: recall_decision_points\n",
        "",
        "id: next_tool_recall_at_5",
        1,
        "metrics[1]: a ratio metric needs a denominator",
    ),
    (
        ME,
        "    title: deterministic task pass\n",
        "    title: deterministic task pass\n    numerator: passes\n",
        "numerator: passes",
        1,
        "metrics[0].numerator: only ratio metrics have a numerator",
    ),
    (
        ME,
        "id: model_turns",
        "id: turns",
        "metrics:",
        1,
        "metrics: the protocol's metric 'model_turns' is missing",
    ),
    (
        ME,
        "id: tool_calls",
        "id: model_turns",
        "id: model_turns",
        2,
        "metrics[9].id: duplicate metric 'model_turns' (also metrics[8])",
    ),
    # gates
    (
        GA,
        "metric: task_pass",
        "metric: task_success",
        "task_success",
        1,
        "criteria[0].metric: unknown metric 'task_success'",
    ),
    (
        GA,
        "treatment: SR-5-STATE-AWARE",
        "treatment: SR-6",
        "treatment",
        1,
        "treatment: unknown condition 'SR-6'",
    ),
    (
        GA,
        "comparator: SR-PROGRESSIVE-STATIC",
        "comparator: SR-5-STATIC",
        "comparator",
        1,
        "comparator: 'SR-5-STATIC' differs from the protocol's 'SR-PROGRESSIVE-STATIC'",
    ),
    (
        GA,
        'operator: ">="\n    threshold: -0.02',
        'operator: "<="\n    threshold: -0.02',
        'operator: "<="',
        1,
        "criteria[0].operator: ci_low decides a lower bound; '<=' does not",
    ),
    (
        GA,
        "compare: all_conditions\n    statistic: exact_count",
        "compare: difference\n    statistic: exact_count",
        "statistic: exact_count",
        1,
        "criteria[4].statistic: exact_count does not fit compare=difference",
    ),
    (
        GA,
        "threshold: 0.97",
        "threshold: 0.95",
        "threshold: 0.95",
        1,
        "criteria[1].threshold: 0.95 differs from the protocol's 0.97",
    ),
    (
        GA,
        "code: G4",
        "code: G3",
        "code: G3",
        2,
        "criteria[3].code: duplicate criterion 'G3' (also criteria[2])",
    ),
    (GA, "code: G4", "code: G3", "criteria:", 1, "criteria: the protocol's criterion G4 is missing"),
    # schema errors
    (
        GA,
        "rule: all_criteria_all_catalogs",
        "rule: all_criteria_all_catalogs\nnotes: hi",
        "notes:",
        1,
        "notes: unknown key 'notes' (expected one of: comparator, criteria, interval, rule, treatment)",
    ),
    (
        EX,
        "iterations: 10000",
        "iterations: many",
        "iterations",
        1,
        "bootstrap.iterations: 'many' is not of type 'integer'",
    ),
    (
        CO,
        "policy: static_topk",
        "policy: static",
        "policy: static",
        1,
        "conditions[0].policy: 'static' is not one of",
    ),
    (ME, "    better: higher\n", "", "- id: task_pass", 1, "metrics[0]: missing required key 'better'"),
    (
        SC,
        "free_text_in_retrieval: never",
        "free_text_in_retrieval: sometimes",
        "free_text_in_retrieval",
        1,
        "free_text_in_retrieval: 'never' was expected",
    ),
    (
        ME,
        "applies_to: all",
        "applies_to: everything",
        "applies_to: everything",
        1,
        "metrics[0].applies_to: 'everything' is not valid under any of the given schemas",
    ),
    (
        SC,
        "kind: set, items: route_id",
        "kind: set",
        "kind: set}",
        1,
        "allowed[0].type: missing required key 'items'",
    ),
]


@pytest.mark.parametrize(("rel", "old", "new", "needle", "occurrence", "fragment"), CASES)
def test_problem_is_reported_at_its_line(
    tmp_path, rel: str, old: str, new: str, needle: str, occurrence: int, fragment: str
) -> None:
    paths = make_project(tmp_path)
    edit(paths, rel, old, new)
    line = line_of(paths, rel, needle, occurrence=occurrence)
    find_line(validation_lines(paths), f"{rel}:{line}:", fragment)


def test_gate_metric_must_cover_the_compared_conditions(tmp_path) -> None:
    paths = make_project(tmp_path)
    edit(paths, ME, RECALL_APPLIES, "applies_to: [SR-5-STATIC, SR-PROGRESSIVE-STATIC]")
    line = line_of(paths, GA, "metric: next_tool_recall_at_5")
    find_line(
        validation_lines(paths),
        f"{GA}:{line}:",
        "criteria[1].metric: metric 'next_tool_recall_at_5' does not apply to 'SR-5-STATE-AWARE', "
        "which compare=treatment needs",
    )


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
