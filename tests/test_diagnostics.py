"""Diagnostics of a scored run, from its stored traces: on one full reference run of 0.14 (a recorded
copy of the project), the failure taxonomy sums to the failures of every condition x catalog, recall by
transition adds up to Recall@5, report.json version 2 matches its schema, `sr explain` and
`sr compare` print what they promise, and report.html works in a real headless Chromium."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from extras import require_executable, require_module
from jsonschema import Draft202012Validator
from registry_support import scratch
from run_support import REPO, recorded_project
from typer.testing import CliRunner

from runtime.core.errors import SchemaRouterError
from runtime.diagnostics.causes import CAUSE_IDS
from runtime.diagnostics.compare import compare_runs
from runtime.diagnostics.intervals import RatioColumns
from runtime.report.compare_text import render_compare
from runtime.report.intervals_text import FLAG_MARK, fmt_interval
from runtime.run.scope import TaskRef
from runtime.scoring.bootstrap import resample_counts, resample_indices, task_layout
from schemarouter.application.schemas import load_schema
from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

ARTIFACTS = REPO / "build" / "test-artifacts"


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    paths = recorded_project(tmp_path_factory.mktemp("diagnostics"))
    result = CliRunner().invoke(
        app, ["--project-dir", str(paths.root), "run", "--workers", "2", "--no-plots"]
    )
    assert result.exit_code == 0, result.output
    (run_dir,) = sorted(paths.runs_dir.iterdir())
    report = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in (run_dir / "per_task.jsonl").read_text().splitlines()]
    return {"paths": paths, "run_dir": run_dir, "report": report, "rows": rows}


def test_the_taxonomy_gives_every_failure_exactly_one_cause(scored: dict[str, Any]) -> None:
    taxonomy = scored["report"]["diagnostics"]["failure_taxonomy"]
    assert [p["code"] for p in taxonomy["precedence"]] == list(CAUSE_IDS)
    failed_episodes = scored["report"]["diagnostics"]["failed_episodes"]
    for condition, by_catalog in taxonomy["by_condition"].items():
        for catalog, cell in by_catalog.items():
            failures = sum(
                1
                for r in scored["rows"]
                if r["condition"] == condition and str(r["catalog"]) == catalog and not r["task_pass"]
            )
            assert cell["failures"] == failures
            assert sum(cell["causes"].values()) == failures, (condition, catalog, cell)
            listed = [e for e in failed_episodes if e[1] == condition and str(e[2]) == catalog]
            assert len(listed) == failures and all(e[3] in CAUSE_IDS for e in listed)
    state_aware = taxonomy["by_condition"]["SR-5-STATE-AWARE"]["100"]
    assert state_aware["failures"] > 0 and state_aware["causes"]["never_exposed"] > 0
    assert all(sum(c["causes"].values()) == 0 for c in taxonomy["by_condition"]["FULL"].values())


def test_recall_by_transition_adds_up_to_recall_at_5(scored: dict[str, Any]) -> None:
    report = scored["report"]
    recall = report["diagnostics"]["recall_by_transition"]["by_condition"]
    assert set(recall) == {"SR-5-STATIC", "SR-PROGRESSIVE-STATIC", "SR-5-STATE-AWARE"}
    for condition, by_catalog in recall.items():
        for catalog, block in by_catalog.items():
            rows = [r for r in scored["rows"] if r["condition"] == condition and str(r["catalog"]) == catalog]
            hits = sum(r["recall_hits"] for r in rows)
            points = sum(r["recall_decision_points"] for r in rows)
            for part in ("after", "stratum", "language"):
                assert sum(v["numerator"] for v in block[part].values()) == hits
                assert sum(v["denominator"] for v in block[part].values()) == points
            metric = report["metrics"][condition][catalog]["next_tool_recall_at_5"]
            assert block["all"]["point"] == metric["point"]
            assert (block["all"]["ci_low"], block["all"]["ci_high"]) == (metric["ci_low"], metric["ci_high"])
    after = recall["SR-5-STATE-AWARE"]["100"]["after"]
    assert after["ok"]["point"] > after["blocked"]["point"]  # what the issue found by hand: 55 % vs 3 %


def test_report_json_version_2_matches_its_schema(scored: dict[str, Any]) -> None:
    schema = load_schema("runtime", "scoring/report.schema.json")
    report = scored["report"]
    assert report["report_version"] == 2 and report["diagnostics"] is not None
    assert list(Draft202012Validator(schema).iter_errors(report)) == []
    anatomy = report["diagnostics"]["refresh_anatomy"]["by_condition"]
    assert set(anatomy) == {"SR-5-STATE-AWARE"}  # only state-aware refreshes are dissected
    for cell in anatomy["SR-5-STATE-AWARE"].values():
        assert cell["slots"] == 5 * cell["refreshes"]
        assert all(0 <= cell["counts"][k] <= cell["slots"] for k in cell["counts"])
        assert cell["counts"]["key_names_only"] <= cell["counts"]["key_names_decisive"]
    for by_catalog in report["diagnostics"]["failure_taxonomy"]["by_condition"].values():
        assert all(0 <= c["refresh_dropped_required"] <= c["failures"] for c in by_catalog.values())


def test_sr_explain_prints_the_breakdowns_and_refuses_unknown_filters(scored: dict[str, Any]) -> None:
    run_dir = str(scored["run_dir"])
    out = CliRunner().invoke(app, ["explain", run_dir, "--condition", "SR-5-STATE-AWARE", "--catalog", "500"])
    assert out.exit_code == 0, out.output
    for text in (
        "after ok",
        "after error",
        "after blocked",
        "Failure taxonomy",
        "never_exposed",
        "Refresh anatomy",
    ):
        assert text in out.output
    assert "SR-5-STATIC " not in out.output.split("Per-task flips")[0]  # filtered to one condition
    bad = CliRunner().invoke(app, ["explain", run_dir, "--condition", "NOPE"])
    assert bad.exit_code == 1 and "--condition NOPE: not in this run" in bad.output
    assert "Traceback" not in bad.output


def test_sr_explain_on_a_report_without_diagnostics_says_how_to_get_them(
    scored: dict[str, Any], tmp_path: Path
) -> None:
    old = {k: v for k, v in scored["report"].items() if k not in ("diagnostics", "metric_definitions")}
    (tmp_path / "report.json").write_text(json.dumps({**old, "report_version": 1}), encoding="utf-8")
    out = CliRunner().invoke(app, ["explain", str(tmp_path)])
    assert out.exit_code == 1 and "version 1 holds no diagnostics" in out.output and "sr score" in out.output
    nothing = CliRunner().invoke(app, ["explain", str(tmp_path / "absent")])
    assert nothing.exit_code == 1 and "no report.json" in nothing.output


def test_compare_with_itself_is_zero_and_with_another_experiment_says_so(scored: dict[str, Any]) -> None:
    report, rows = scored["report"], scored["rows"]
    same = compare_runs(report, rows, report, rows)
    assert same["differs"] == [] and same["gate_allowed"] and same["common_tasks"] == 180
    assert same["by_condition"]["SR-5-STATE-AWARE"]["100"]["task_pass"]["point"] == 0.0
    other = copy.deepcopy(report)
    other["experiment_id"], other["freeze_root_hash"] = "0.15", "0" * 64
    other_rows = copy.deepcopy(rows)
    flipped = [r for r in other_rows if r["condition"] == "SR-5-STATE-AWARE" and r["catalog"] == 100]
    for r in flipped[:10]:
        r["task_pass"] = 1 - r["task_pass"]
    result = compare_runs(report, rows, other, other_rows)
    assert result["differs"] == ["experiment_id", "freeze_root_hash"] and not result["gate_allowed"]
    flips = result["flips"]["SR-5-STATE-AWARE"]["100"]
    assert len(flips["a_only"]) + len(flips["b_only"]) == 10
    expected = (len(flips["b_only"]) - len(flips["a_only"])) / 180
    assert result["by_condition"]["SR-5-STATE-AWARE"]["100"]["task_pass"]["point"] == pytest.approx(expected)
    text = render_compare(result, "A", "B", {})
    assert "These runs DIFFER in experiment, freeze root" in text and "never a gate" in text


def test_sr_compare_cli_on_two_scored_runs(scored: dict[str, Any], tmp_path: Path) -> None:
    run_dir = scored["run_dir"]
    other = tmp_path / "other"
    other.mkdir()
    changed = copy.deepcopy(scored["report"])
    changed["experiment_id"] = "0.15"
    (other / "report.json").write_text(json.dumps(changed), encoding="utf-8")
    (other / "per_task.jsonl").write_bytes((run_dir / "per_task.jsonl").read_bytes())
    out = CliRunner().invoke(app, ["compare", str(run_dir), str(other), "--json", str(tmp_path / "c.json")])
    assert out.exit_code == 0, out.output
    assert "DIFFER in experiment" in out.output and "Paired differences B - A at catalog 500" in out.output
    assert json.loads((tmp_path / "c.json").read_text())["differs"] == ["experiment_id"]
    missing = CliRunner().invoke(app, ["compare", str(run_dir), str(tmp_path)])
    assert missing.exit_code == 1 and "no report.json" in missing.output


def test_one_task_per_cell_and_undefined_resamples_are_flagged() -> None:
    tasks = [
        TaskRef(task_id=f"t{i}", stratum="s", language=lang) for i, lang in enumerate(["en", "de", "ko"])
    ]
    layout = task_layout(tasks, strata=["s"], languages=["en", "de", "ko"])
    counts = resample_counts(resample_indices(layout, iterations=200, seed=1), layout.n)
    columns = RatioColumns(layout)
    columns.add("one", [("t0", 1, 2), ("t1", 1, 1), ("t2", 0, 1)])
    (interval,) = columns.intervals(counts, (2.5, 97.5)).values()
    assert interval["ci_low"] == interval["ci_high"] == interval["point"]
    assert interval["flag"] == "zero width: 1 task/cell"
    assert f"{FLAG_MARK} zero width: 1 task/cell" in fmt_interval(interval, {})
    # a metric interval of report.json: flagged from the scope's tasks per cell
    smoke = {"scope": {"tasks_per_cell": {"min": 1, "max": 1}}, "bootstrap": {"iterations": 10000}}
    shown = fmt_interval(
        {"point": 0.5909, "ci_low": 0.5909, "ci_high": 0.5909, "undefined_resamples": 0}, smoke
    )
    assert shown == f"0.5909 [0.5909, 0.5909] {FLAG_MARK} zero width: 1 task/cell"
    undefined = {"point": 0.5, "ci_low": 0.1, "ci_high": 0.9, "undefined_resamples": 12}
    assert "12/10,000 undefined" in fmt_interval(undefined, smoke)
    honest = {"scope": {"tasks_per_cell": {"min": 6, "max": 6}}, "bootstrap": {"iterations": 10000}}
    assert FLAG_MARK not in fmt_interval({**undefined, "undefined_resamples": 0}, honest)


def test_report_md_carries_the_diagnostics(scored: dict[str, Any]) -> None:
    text = (scored["run_dir"] / "report.md").read_text(encoding="utf-8")
    assert "## Diagnostics" in text and "after blocked" in text and "Failure taxonomy" in text


# Per figure svg of report.html: its box, how many non-empty texts it holds, and those drawn outside it.
_FIGURE_BOXES = """() => Object.fromEntries([...document.querySelectorAll('svg.figure')].map(svg => {
  const box = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim());
  const outside = texts.filter(t => { const r = t.getBoundingClientRect();
    return r.width === 0 || r.left < box.left - 0.5 || r.right > box.right + 0.5
      || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5; }).map(t => t.textContent);
  return [svg.id, [box.width, box.height, texts.length, outside]]; }))"""


def test_report_html_in_headless_chromium(scored: dict[str, Any]) -> None:
    sync_api = require_module("playwright.sync_api", extra="report")
    chromium = require_executable("chromium", apt="chromium")
    page_file = scored["run_dir"] / "report.html"
    assert page_file.is_file()
    text = page_file.read_text(encoding="utf-8").replace("http://www.w3.org/2000/svg", "")
    assert "http://" not in text and "https://" not in text and "<link" not in text  # nothing fetched
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            context = browser.new_context(viewport={"width": 1300, "height": 900}, offline=True)
            page = context.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_file.as_uri())
            assert "FAIL" in page.text_content("#verdict")
            figures = page.evaluate(_FIGURE_BOXES)
            assert sorted(figures) == ["difference-figure", "recall-figure", "tokens-figure"]
            for figure_id, (width, height, texts, outside) in figures.items():
                assert width > 100 and height > 100 and texts > 10, figure_id
                assert outside == [], (figure_id, outside)  # every label inside its svg
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.locator("#recall-heatmap").screenshot(path=str(ARTIFACTS / "report_html_recall.png"))
            assert page.text_content("#count").startswith("2700 of 2700")
            page.select_option("#filter-condition", "SR-5-STATE-AWARE")
            page.select_option("#filter-catalog", "100")
            page.select_option("#filter-result", "fail")
            count = page.text_content("#count")
            assert count.startswith("120 of 2700"), count
            page.select_option("#filter-cause", "evicted_by_refresh")
            narrowed = int(page.text_content("#count").split()[0])
            assert 0 < narrowed < 120 and page.locator("#episode-list tbody tr").count() == narrowed
            page.locator("#episode-list tbody tr").first.click()
            page.wait_for_selector("#episode .turn")
            assert page.locator("#episode .turn").count() >= 2
            first_turn = page.text_content("#episode .turn")
            for label in ("exposure", "retrieval calls", "decision", "gate audit", "result", "state after"):
                assert label in first_turn
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.evaluate("document.getElementById('episode-head').scrollIntoView()")
            page.screenshot(path=str(ARTIFACTS / "report_html_episode.png"), full_page=False)
        finally:
            browser.close()
    assert errors == []
    assert (ARTIFACTS / "report_html_episode.png").stat().st_size > 10_000


def test_a_registered_html_section_takes_its_place_in_the_page_and_its_navigation(
    scored: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new report.html section is one decorated function (as a module of runtime/report/sections/
    would define it): it comes out by order between the built-ins, linked from the navigation, with
    its title escaped; codes are taken once and must be usable as HTML ids."""
    from runtime.report import html_section_registry as registry
    from runtime.report.html import render_html

    scratch(monkeypatch, registry.HTML_SECTIONS)

    @registry.html_section("verdict-note", order=15, title="Notes <on> the verdict", nav="Notes")
    def _notes(ctx: registry.HtmlContext) -> str:
        return f"<p>{len(ctx.report['gate']['by_catalog'])} catalog sizes</p>"

    page = render_html(scored["report"], [], [])
    ids = [part.split('"', 1)[0] for part in page.split('<section id="')[1:]]
    assert ids == [
        "gate",
        "recall-heatmap",
        "tokens-vs-pass",
        "difference-heatmap",
        "verdict-note",
        "breakdowns",
        "traces",
    ]
    assert '<a href="#verdict-note">Notes</a>' in page
    assert "<h2>Notes &lt;on&gt; the verdict</h2>" in page
    assert f"<p>{len(scored['report']['gate']['by_catalog'])} catalog sizes</p>" in page
    twice = r"'gate' is registered twice: by runtime\.report\.html and by test_diagnostics"
    with pytest.raises(SchemaRouterError, match=twice):
        registry.html_section("gate", order=10, title="Gate")(lambda ctx: "")
    with pytest.raises(ValueError, match="lowercase letters"):
        registry.html_section("Bad Id", order=1, title="x")


def test_golden_check_compares_the_pinned_payload_not_the_report_version(
    scored: dict[str, Any], tmp_path: Path
) -> None:
    from runtime.report.golden import check_golden, write_golden
    from schemarouter.project import ProjectPaths

    report = scored["report"]
    # the committed golden files, written from report_version 1, pass against this version-2 report
    assert json.loads((ProjectPaths.at(REPO).golden_dir / "gate.json").read_text())["report_version"] == 1
    assert check_golden(ProjectPaths.at(REPO).golden_dir, report) == []
    old = {**report, "report_version": 1}
    write_golden(tmp_path, old)
    assert check_golden(tmp_path, report) == []
    changed = copy.deepcopy(report)
    changed["gate"]["by_catalog"]["100"]["criteria"][0]["point"] = 0.5
    problems = check_golden(tmp_path, changed)
    assert any("gate.json: $.gate.by_catalog.100.criteria[0].point" in p for p in problems), problems
    write_golden(tmp_path, {**report, "report_version": 3})  # written by newer code: reported
    assert any("report_version" in p for p in check_golden(tmp_path, report))


def test_every_figure_is_png_svg_on_request_labels_fit(scored: dict[str, Any], tmp_path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    from compiler import compile_project
    from runtime.report import plots
    from runtime.scoring import ScoringSpec

    spec = ScoringSpec.from_compiled(compile_project(scored["paths"], write_manifest=False))
    options = dict(
        strata=spec.strata,
        languages=spec.languages,
        recall_components=("recall_hits", "recall_decision_points"),
    )
    # PNG only unless asked: tests/test_report_figures.py (sr score --plots), which draws them anyway.
    written = plots.write_plots(tmp_path, scored["report"], scored["rows"], **options, svg=True)
    assert sorted(p.name for p in written) == sorted(
        [n for n in plots.PLOT_FILES] + [n.replace(".png", ".svg") for n in plots.PLOT_FILES]
    )
    assert "difference_heatmap.png" in plots.PLOT_FILES
    assert "<svg" in (tmp_path / "difference_heatmap.svg").read_text(encoding="utf-8")
    for name in plots.PLOT_FILES:
        fig = plots.figure(name, scored["report"], scored["rows"], **options)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
        labels = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
        assert any(
            t.get_text() in ("language", "stratum")
            or "point and 95% interval" in t.get_text()
            or "log scale" in t.get_text()
            for t in labels
        ), name
        tight = fig.get_tightbbox(renderer)  # everything drawn, in inches
        width, height = fig.get_size_inches()
        assert tight.x0 >= -0.01 and tight.y0 >= -0.01, (name, tight)
        assert tight.x1 <= width + 0.01 and tight.y1 <= height + 0.01, (name, tight, width, height)


def test_each_primary_cause_holds_and_no_earlier_one_does(scored: dict[str, Any]) -> None:
    from runtime.engine.metrics import executed_calls_from_turns
    from runtime.engine.trace import read_trace
    from runtime.run.scope import EpisodeKey
    from runtime.run.store import EpisodeStore
    from runtime.surface import load_surface
    from runtime.surface.plan import next_required_route

    tasks = {t.task_id: t for t in load_surface(scored["paths"].catalogs_dir)}
    seen = set()
    with EpisodeStore(scored["run_dir"], readonly=True) as store:
        for task_id, condition, catalog, cause in scored["report"]["diagnostics"]["failed_episodes"]:
            trace = read_trace(store.read_trace(EpisodeKey(task_id, condition, catalog)) or "")
            assert not trace.passed
            executed = [c for _, c in executed_calls_from_turns(list(trace.turns))]
            needed = next_required_route(tasks[task_id], executed)
            reasons = {(t.audit or {}).get("reason") for t in trace.turns}
            shown = [needed in trace.exposed_route_ids(t) for t in trace.turns]
            called = any(
                t.result is not None and t.result.route_id == needed and t.result.status != "blocked"
                for t in trace.turns
            )
            holds = {
                "destructive_denied": "UNAUTHORIZED_DESTRUCTIVE" in reasons,
                "arguments_blocked": needed is not None
                and any(
                    (t.audit or {}).get("route_id") == needed
                    and (t.audit or {}).get("reason") == "INVALID_ARGUMENTS"
                    for t in trace.turns
                ),
                "never_exposed": needed is not None and not any(shown),
                "evicted_by_refresh": needed is not None and any(shown) and not called and not shown[-1],
                "exposed_not_called": needed is not None and shown[-1] and not called,
                "budget_exhausted": trace.ended_by in ("max_turns", "no_progress"),
                "wrong_or_missing_answer": True,
            }
            earlier = CAUSE_IDS[: CAUSE_IDS.index(cause)]
            assert holds[cause] and not any(holds[c] for c in earlier), (task_id, condition, catalog, cause)
            seen.add(cause)
    assert {"never_exposed", "evicted_by_refresh", "arguments_blocked"} <= seen


def test_a_version_1_trace_gives_the_same_facts(scored: dict[str, Any]) -> None:
    from runtime.catalog.io import load_catalog
    from runtime.diagnostics.episode_facts import episode_facts
    from runtime.engine.trace import read_trace
    from runtime.run.scope import EpisodeKey
    from runtime.run.store import EpisodeStore
    from runtime.surface import load_surface

    paths = scored["paths"]
    task = {t.task_id: t for t in load_surface(paths.catalogs_dir)}["S3-en-01"]
    endpoints = load_catalog(paths.catalogs_dir, 100).by_route()
    with EpisodeStore(scored["run_dir"], readonly=True) as store:
        stored = json.loads(store.read_trace(EpisodeKey("S3-en-01", "SR-5-STATE-AWARE", 100)) or "{}")
    v1 = {k: v for k, v in stored.items() if k not in ("catalog_digest", "exposures")}
    v1["trace_version"] = 1
    v1["initial_exposure"] = stored["exposures"][stored["initial_exposure"]]
    v1["turns"] = [
        {
            **{k: v for k, v in t.items() if k != "exposure"},
            "exposed_route_ids": stored["exposures"][t["exposure"]],
        }
        for t in stored["turns"]
    ]
    new = episode_facts(read_trace(stored), task, endpoints, ranks=True)
    old = episode_facts(read_trace(v1), task, endpoints, ranks=True)
    assert new == old and new.points and new.refreshes


def test_facts_observed_from_the_audits_traces_give_the_diagnosis_reading_the_stored_text_gives(
    scored: dict[str, Any], tmp_path: Path
) -> None:
    """Scoring hands the metrics audit's reading of each trace to ``Diagnoser.observe`` (each trace is
    parsed once): the section is byte for byte the one the diagnosis computes reading every stored text
    itself; observed facts are used only for exactly the outcomes diagnosed, in order; a trace of
    another episode is still refused by the audit, before anything is observed."""
    import dataclasses
    import random

    from runtime.diagnostics.build import diagnose, stored_facts
    from runtime.diagnostics.source import Diagnoser, episode_source
    from runtime.run.engine_port import EngineAdapter
    from runtime.run.resultset import load_result_set, read_terminal_outcomes
    from runtime.scoring.score import DiagnosisInput, score_result_set
    from runtime.scoring.spec import ScoringSpec
    from runtime.spec_model import load_compiled, read_lock
    from schemarouter.application.score import scoring_setup

    paths, run_dir = scored["paths"], scored["run_dir"]
    compiled = load_compiled(paths.compiled_manifest)
    audit = EngineAdapter().metrics_audit(scoring_setup(paths, compiled, [run_dir]))
    source = episode_source(audit)
    lock = read_lock(paths.lock_file)
    assert source is not None and lock is not None
    spec, result_set = ScoringSpec.from_compiled(compiled), load_result_set([run_dir])

    def score(out: str, *, observing: bool) -> tuple[bytes, Diagnoser]:
        diagnoser = Diagnoser(source, compiled)
        score_result_set(
            result_set,
            spec=spec,
            current_freeze_hash=lock.root.digest,
            out_dir=tmp_path / out,
            audit=audit,
            diagnose=diagnoser,
            observe=diagnoser.observe if observing else None,
        )
        return (tmp_path / out / "report.json").read_bytes(), diagnoser

    (observed, diagnoser), (read, _) = score("observed", observing=True), score("read", observing=False)
    assert observed == read
    assert json.loads(observed)["diagnostics"] == scored["report"]["diagnostics"]

    outcomes = read_terminal_outcomes(result_set, with_traces=True)
    layout = task_layout(result_set.scope.tasks, strata=spec.strata, languages=spec.languages)

    def given(chosen: list[Any]) -> DiagnosisInput:
        counts = resample_counts(resample_indices(layout, iterations=10, seed=1), layout.n)
        return DiagnosisInput(
            spec=spec, scope=result_set.scope, outcomes=chosen, rows=[], layout=layout, counts=counts
        )

    assert diagnoser._observed_facts(given(outcomes)) == stored_facts(given(outcomes), source)
    rng = random.Random(20261203)  # any other list of outcomes: the observed facts are not used
    shuffled = rng.sample(outcomes, len(outcomes))
    assert diagnoser._observed_facts(given(shuffled)) is None
    assert diagnoser._observed_facts(given(outcomes[:-1])) is None
    with pytest.raises(ValueError, match="handed in for"):
        diagnose(given(outcomes[:-1]), source, None, facts=stored_facts(given(outcomes), source))

    stray = dataclasses.replace(outcomes[0], trace_json=outcomes[1].trace_json)
    with pytest.raises(SchemaRouterError, match="belongs to"):
        audit(stray)
