"""A generated hostile-input suite: more variants of every family of issue 18, each held to the same
rules as the case files (tests/cases/hostile/*.yaml):

- exit code 1 or 2, and no traceback;
- where the input is a text file, a message line that starts ``file:line:col:``;
- nothing written outside the directory the command may write to.

Spec and schema variants run ``sr validate`` on a copy of the six core spec files; state variants run
``sr retrieve --state``; store variants damage a finished two-episode run; argument variants use the
commands that reject them. Byte damage to the store is placed by ``random.Random(STORE_SEED)``.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostile_support import (
    REPO,
    apply_edit,
    assert_hostile_outcome,
    make_project,
    make_single_spec_project,
    run_cli,
    use_compile_cache,
)

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

STORE_SEED = 20261201
DEEP = 70  # one level past safe_json.MAX_DEPTH (64), which YAML and JSON share


@dataclass(frozen=True)
class Variant:
    id: str
    file: str
    edit: dict


def _spec_variants() -> list[Variant]:
    """YAML spec files: tags, anchors, aliases, nesting, control characters, surrogates, numbers."""
    appended = {
        "core-bool-tag": "extra_flag: !!bool yes\n",
        "core-int-tag": "extra_n: !!int 12\n",
        "core-float-tag": "extra_x: !!float abc\n",
        "core-null-tag": "extra_z: !!null ''\n",
        "core-seq-tag": "extra_s: !!seq [1]\n",
        "binary-tag": "extra_b: !!binary aGVsbG8=\n",
        "timestamp-tag": "extra_t: !!timestamp 2026-01-01\n",
        "python-tag": "extra_p: !!python/name:os.system ''\n",
        "local-tag": "extra_l: !secret x\n",
        "anchor": "extra_a: &one 1\n",
        "alias-bomb": "a0: &a0 [x, x, x, x, x, x, x, x]\n"
        + "".join(f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]\n" for i in range(1, 12)),
        "flow-deep": "deep: " + "[" * DEEP + "]" * DEEP + "\n",
        "flow-map-deep": "deep: " + "{a: " * DEEP + "1" + "}" * DEEP + "\n",
        "block-deep": "deep:\n" + "".join("  " * i + "- \n" for i in range(DEEP)),
        "bell": 'extra_c: "\a"\n',
        "escape-char": "extra_c: \x1b[31m\n",
        "nul-char": "extra_c: a\x00b\n",
        "lone-surrogate": 'extra_u: "\\ud800"\n',
        "low-surrogate-key": '"k\\udfff": 1\n',
        "huge-int": "extra_i: " + "7" * 5000 + "\n",
        "nan": "extra_n: .nan\n",
        "inf": "extra_n: -.inf\n",
        "float-overflow": "extra_n: 1e999\n",
        "merge-key": "extra_m:\n  <<: {a: 1}\n",
        "two-documents": "---\nother: 1\n",
        "bad-indent": "  broken: [\n",
        "non-string-key": "1: one\n",
        "duplicate-key": "version: 1\nversion: 2\n",
    }
    variants = []
    for target, names in (
        ("conditions", list(appended)),
        ("gates", ["core-float-tag", "alias-bomb", "block-deep", "nul-char", "huge-int"]),
        ("state_contract", ["core-bool-tag", "anchor", "flow-map-deep", "lone-surrogate", "merge-key"]),
    ):
        for name in names:
            file = f"spec/{target}.yaml"
            variants.append(Variant(f"{target}-{name}", file, {"file": file, "append": appended[name]}))
    file = "spec/strata.yaml"
    variants.append(Variant("strata-not-utf8", file, {"file": file, "write_hex": "6b3a20ff0a"}))
    variants.append(Variant("strata-utf16", file, {"file": file, "write_hex": "fffe6b003a00"}))
    return variants


def _schema_variants() -> list[Variant]:
    """JSON schemas: refs out of the schema, unusable or backtracking patterns, nesting, bad JSON."""
    file = "spec/schema/conditions.schema.json"
    limits = '    "limits": {\n'
    pattern = '"pattern": "^C[0-9]+$"'
    out: list[Variant] = []
    for i, ref in enumerate(
        ["https://example.com/x.json", "http://127.0.0.1:9/x", "file:///etc/passwd", "other.schema.json",
         "urn:example:x", "#/$defs/missing", "//example.com/x", "#not-a-pointer"]
    ):  # fmt: skip
        out.append(
            Variant(
                f"ref-{i}",
                file,
                {"file": file, "replace": {"old": limits, "new": f'{limits}"$ref": "{ref}",\n'}},
            )
        )
    for i, bad in enumerate(["[", "(", "a{2,1}", "(?<=a)b", "(a)\\\\1", "[z-a]", "*a", "(?P<x"]):
        out.append(
            Variant(
                f"pattern-{i}",
                file,
                {"file": file, "replace": {"old": pattern, "new": f'"pattern": "{bad}"'}},
            )
        )
    for name, text in {
        "deep": '{"a":' * DEEP + "1" + "}" * DEEP,
        "nan": '{"$schema": NaN}',
        "duplicate": '{"a": 1, "a": 2}',
        "trailing-comma": '{"a": 1,}',
        "huge-int": '{"a": ' + "9" * 5000 + "}",
        "surrogate": '{"a": "\\ud800"}',
        "infinity": '{"a": 1e999}',
        "empty": "",
        "list": "[]",
    }.items():
        out.append(Variant(f"schema-{name}", file, {"file": file, "write": text}))
    return out


SPEC_VARIANTS = _spec_variants() + _schema_variants()


@pytest.mark.parametrize("variant", SPEC_VARIANTS, ids=[v.id for v in SPEC_VARIANTS])
def test_spec_variant(variant: Variant, tmp_path: Path) -> None:
    name = Path(variant.file).name.split(".")[0]
    root = make_single_spec_project(tmp_path / "project", name)
    apply_edit(root, variant.edit)
    outcome = run_cli(root, ["validate"])
    assert_hostile_outcome(outcome, file=variant.file)


def test_redos_patterns_are_linear(tmp_path: Path) -> None:
    """Backtracking patterns against inputs that would take years with a backtracking engine."""
    root = make_single_spec_project(tmp_path / "project", "conditions")
    schema = "spec/schema/conditions.schema.json"
    apply_edit(
        root, {"file": "spec/conditions.yaml", "replace": {"old": "code: C1", "new": f"code: {'a' * 60}!"}}
    )
    current = '"pattern": "^C[0-9]+$"'
    for evil in ["^(a+)+$", "^(a|aa)+$", "^(a|a?)+$", "^(.*a){20}$", "^([a-z]+)*$"]:
        apply_edit(root, {"file": schema, "replace": {"old": current, "new": f'"pattern": "{evil}"'}})
        current = f'"pattern": "{evil}"'
        outcome = run_cli(root, ["validate"])
        assert_hostile_outcome(outcome, file="spec/conditions.yaml")


STATE_BASE = '"last_execution_status": "none", "last_error_class": null, "task_incomplete": true'
STATE_NAMES = [
    "goldNextRoute", "GOLD_NEXT_ROUTE", "gold-next-route-id", "nextRouteId", "x.nextroute.v1",
    "SR5STATEAWARE", "sr-5-state-aware", "Sr5StateAware", "STATE_AWARE", "progressiveStatic",
    "C1", "c4", "score:0.93", "score=1", "rank.1", "rank_no_2", "position_7", "answer_is_74",
    "expectedAnswer74", "ＧＯＬＤ＿ＰＬＡＮ", "gоld_plan", "taskGraph", "hiddenFacts", "referencefacts",
    "remaining.routes", "please_retrieve_weather_forecast_daily_rain_temperature", "weather.magic.v9",
]  # fmt: skip
STATE_FILES = {
    "not-json": "{",
    "list": "[]",
    "string": '"state"',
    "deep": "[" * 10000 + "]" * 10000,
    "huge-int": '{"task_incomplete": ' + "1" * 5000 + "}",
    "nan": '{"task_incomplete": NaN}',
    "duplicate": '{"task_incomplete": true, "task_incomplete": false, ' + STATE_BASE + "}",
    "unknown-key": '{"rank": 1, ' + STATE_BASE + "}",
    "bad-status": '{"last_execution_status": "gold", "last_error_class": null, "task_incomplete": true}',
    "bad-type-list": '{"observed_value_types": ["float"], ' + STATE_BASE + "}",
    "surrogate": '{"observed_field_names": ["\\ud800"], ' + STATE_BASE + "}",
    "missing-required": "{}",
}


def _state_texts() -> list[tuple[str, str]]:
    named = [
        (f"name-{i}", f'{{"observed_field_names": ["{n}"], {STATE_BASE}}}') for i, n in enumerate(STATE_NAMES)
    ]
    return named + list(STATE_FILES.items())


STATE_VARIANTS = _state_texts()


@pytest.mark.parametrize(("name", "text"), STATE_VARIANTS, ids=[n for n, _ in STATE_VARIANTS])
def test_state_variant(name: str, text: str, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(text, encoding="utf-8", errors="surrogatepass")
    outcome = run_cli(
        tmp_path, ["retrieve", "--catalog", "100", "--state", str(state), "weather"], project=REPO
    )
    assert_hostile_outcome(outcome, file=str(state))
    assert len(outcome.lines) == 1, outcome.output


def test_state_non_utf8_bytes(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    for i, data in enumerate([b"\xff", b'{"a": "\xc3"}', b"\xef\xbb\xbf\xfe{}", b"\x80" * 10]):
        state.write_bytes(data)
        outcome = run_cli(
            tmp_path, ["retrieve", "--catalog", "100", "--state", str(state), "w"], project=REPO
        )
        assert_hostile_outcome(outcome, file=str(state))
        assert len(outcome.lines) == 1, (i, outcome.output)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished, scored two-episode run whose WAL is checkpointed (every page is in the main file),
    with its report scored once more into ``baseline/``."""
    root = make_project(tmp_path_factory.mktemp("generated") / "project", "full")
    run = root / "runs" / "run"
    args = ["run", "--conditions", "C2,C3", "--catalogs", "100", "--tasks", "S1-en-01", "--no-plots"]
    outcome = run_cli(root, [*args, "--workers", "1", "--run-dir", str(run)], may_write=("",))
    assert outcome.exit_code == 0, outcome.output
    with sqlite3.connect(run / "episodes.sqlite") as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    baseline = run_cli(
        root, ["score", str(run), "--no-plots", "--out", str(root / "baseline")], may_write=("",)
    )
    assert baseline.exit_code == 0, baseline.output
    return root


def _store_damages() -> list[tuple[str, dict]]:
    rng = random.Random(STORE_SEED)
    damages: list[tuple[str, dict]] = []
    for i in range(10):
        damages.append(
            (f"page-{i}", {"offset": rng.randrange(100, 7 * 4096), "size": rng.choice([16, 256, 4096])})
        )
    for size in (0, 17, 100, 4096):
        damages.append((f"truncate-{size}", {"truncate": size}))
    for key in ("run_id", "scope", "shard", "episodes", "freeze", "agent"):
        damages.append((f"manifest-without-{key}", {"drop": key}))
    for name, text in {
        "null": "null",
        "number": "7",
        "deep": "[" * 200 + "]" * 200,
        "nan": '{"a": NaN}',
    }.items():
        damages.append((f"manifest-{name}", {"manifest": text}))
    damages.append(("sql-number-key", {"sql": "UPDATE episodes SET task_id = 42 WHERE rowid = 1"}))
    damages.append(("sql-blob-condition", {"sql": "UPDATE episodes SET condition = x'00ff' WHERE rowid = 1"}))
    damages.append(("sql-drop-meta", {"sql": "DROP TABLE meta"}))
    damages.append(("sql-version", {"sql": "UPDATE meta SET value = '99'"}))
    return damages


STORE_DAMAGES = _store_damages()


@pytest.mark.parametrize(("name", "damage"), STORE_DAMAGES, ids=[n for n, _ in STORE_DAMAGES])
def test_store_variant(
    name: str, damage: dict, finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_compile_cache(monkeypatch)
    root = tmp_path / "project"
    shutil.copytree(finished_run, root)
    run = root / "runs" / "run"
    store, manifest = run / "episodes.sqlite", run / "manifest.json"
    file = None
    if "offset" in damage:
        with open(store, "r+b") as handle:
            handle.seek(damage["offset"])
            handle.write(bytes((i * 151 + 7) % 256 for i in range(damage["size"])))
    elif "truncate" in damage:
        with open(store, "r+b") as handle:
            handle.truncate(damage["truncate"])
    elif "drop" in damage:
        text = manifest.read_text(encoding="utf-8")
        data = json.loads(text)
        del data[damage["drop"]]
        manifest.write_text(json.dumps(data, indent=2), encoding="utf-8")
        file = str(manifest)
    elif "manifest" in damage:
        manifest.write_text(damage["manifest"], encoding="utf-8")
        file = str(manifest)
    else:
        with sqlite3.connect(store) as conn:
            conn.execute(damage["sql"])
    out = tmp_path / "out"
    for command in (["status", str(run)], ["score", str(run), "--no-plots", "--out", str(out)]):
        outcome = run_cli(root, command, may_write=("runs/run/",))
        if name.startswith("page-") and outcome.exit_code == 0:
            # The bytes landed where no key or outcome lives (free space, a page's slack): whatever is
            # scored must then be exactly the undamaged run's result.
            if command[0] == "score":
                for report in ("report.json", "per_task.jsonl"):
                    assert (out / report).read_bytes() == (root / "baseline" / report).read_bytes(), report
            continue
        assert_hostile_outcome(outcome, file=file)
        assert not (out / "report.json").exists()


ARGUMENTS = [
    ("retrieve-catalog-7", ["retrieve", "--catalog", "7", "x"]),
    ("retrieve-k-negative", ["retrieve", "-k", "-1", "x"]),
    ("retrieve-catalog-word", ["retrieve", "--catalog", "big", "x"]),
    ("retrieve-state-missing", ["retrieve", "--state", "/nonexistent/state.json", "x"]),
    ("retrieve-state-directory", ["retrieve", "--state", "/tmp", "x"]),
    ("retrieve-spec-missing", ["retrieve", "--retriever-spec", "/nonexistent/r.yaml", "x"]),
    ("status-missing", ["status", "/nonexistent/run"]),
    ("status-file", ["status", "/etc/hostname"]),
    ("status-none", ["status"]),
    ("status-name-too-long", ["status", "a" * 3000]),
    ("run-workers-huge", ["run", "--workers", "9" * 30]),
    ("score-missing", ["score", "/nonexistent/run"]),
    ("unknown-command", ["frobnicate"]),
    ("unknown-option", ["validate", "--frobnicate"]),
]


@pytest.mark.parametrize(("name", "args"), ARGUMENTS, ids=[n for n, _ in ARGUMENTS])
def test_argument_variant(name: str, args: list[str], tmp_path: Path) -> None:
    outcome = run_cli(tmp_path, args, project=REPO)
    assert_hostile_outcome(outcome, file=None)


def test_the_suite_is_large_enough() -> None:
    total = len(SPEC_VARIANTS) + len(STATE_VARIANTS) + len(STORE_DAMAGES) + len(ARGUMENTS)
    assert total >= 60, total
