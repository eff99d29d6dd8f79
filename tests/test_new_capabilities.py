"""Surfaces of new capabilities: `sr surface generate` plans over every route of the smallest catalog
(version twins aside) when the core routes have no plan, so a surface can hold goals no earlier plan
used. ORACLE and FULL pass every task of it and every gold run succeeds; the catalogs stay unchanged.
A stratum whose shape the catalog lacks is one line naming the stratum, the shape and the closest
chains. Every project here is a temporary copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_confirmation import DRAFT, _project, _sr, _tree
from test_dev_surface import ROOT

pytestmark = pytest.mark.slow

NEW = ROOT / "tests" / "fixtures" / "surfaces" / "new_capabilities" / "intents.yaml"


def _plans(path: Path) -> dict[str, list[str]]:
    tasks = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {t["task_id"]: [s["route_id"] for s in t["hidden"]["plan"]] for t in tasks}


def _goals(path: Path) -> set[str]:
    return {plan[-1] for plan in _plans(path).values()}


def _routes(path: Path) -> set[str]:
    return {r for plan in _plans(path).values() for r in plan}


def test_a_surface_of_new_capabilities_runs_with_oracle_and_full_passing_every_task(tmp_path):
    project = _project(tmp_path)
    catalogs = _tree(project, "catalogs/0.14", f"catalogs/{DRAFT}")
    out = tmp_path / "nc"
    generated = _sr(
        project, "surface", "generate", "--experiment", DRAFT, "--intents", str(NEW), "--seed", "11",
        "--tag", "nc", "--out", str(out),
    )  # fmt: skip
    assert generated.exit_code == 0, generated.output  # every task's gold run succeeded (tasks.py)
    assert _tree(project, "catalogs/0.14", f"catalogs/{DRAFT}") == catalogs

    known = set()
    for surface in (
        ROOT / "catalogs" / "0.14" / "surface.jsonl",
        ROOT / "catalogs" / "_surfaces" / "dev" / "0.14" / "surface.jsonl",
        ROOT / "catalogs" / DRAFT / "surface.jsonl",
        ROOT / "catalogs" / "_surfaces" / "dev" / DRAFT / "surface.jsonl",
    ):
        known |= {r.rsplit(".v", 1)[0] for r in _routes(surface)}
    new_goals = {g.rsplit(".v", 1)[0] for g in _goals(out / "surface.jsonl")} - known
    assert new_goals == {
        "weather.history.daily",
        "files.items.archive",
        "messaging.chat.schedule",
        "travel.hotels.hold.release",
        "payments.intents.cancel",
    }

    run = _sr(
        project, "run", "--experiment", DRAFT, "--surface-file", str(out), "--conditions", "ORACLE,FULL",
        "--workers", "1", "--no-plots", "--run-dir", str(project / "runs" / "nc"),
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    rows = [
        json.loads(line) for line in (project / "runs" / "nc" / "per_task.jsonl").read_text().splitlines()
    ]
    assert len(rows) == 2 * 3 * 180
    failed = sorted({(r["condition"], r["catalog"], r["task_id"]) for r in rows if r["task_pass"] != 1})
    assert failed == []


def _intents(tmp_path: Path, text: str) -> Path:
    base = NEW.read_text()
    path = tmp_path / "intents.yaml"
    path.write_text(base + text)
    return path


def test_a_missing_shape_names_the_stratum_the_shape_and_the_closest_chains(tmp_path):
    project = _project(tmp_path)
    wrong = _intents(
        tmp_path,
        """  - id: nc_weather_as_provenance
    stratum: identifier_provenance
    goal: weather.history.daily
    slots: {place: landmark, day: date}
    phrasings:
      en: ["Weather at {place} on {day}?", "Temperatures at {place} on {day}?"]
      es: ["¿Tiempo en {place} el {day}?", "¿Temperaturas en {place} el {day}?"]
      de: ["Wetter bei {place} am {day}?", "Temperaturen bei {place} am {day}?"]
      ko: ["{day} {place} 날씨?", "{day} {place} 기온?"]
      ja: ["{day}の{place}の天気は？", "{day}の{place}の気温は？"]
      zh: ["{day}{place}天气？", "{day}{place}气温？"]
""",
    )
    result = _sr(
        project, "surface", "generate", "--experiment", DRAFT, "--intents", str(wrong), "--seed", "11",
        "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert result.exit_code == 1
    (line,) = [x for x in result.output.splitlines() if x.strip()]
    assert "nc_weather_as_provenance: stratum identifier_provenance needs a create/upsert producer" in line
    assert (
        "Closest chains (typed, without that shape): geo.geocode.forward.v2 -> weather.history.daily.v2"
        in line
    )
    assert not (tmp_path / "out").exists()


def test_surface_stats_reports_the_share_of_plans_and_goals_other_surfaces_use(tmp_path):
    project = _project(tmp_path)
    out = tmp_path / "nc"
    generated = _sr(
        project, "surface", "generate", "--experiment", DRAFT, "--intents", str(NEW), "--seed", "11",
        "--tag", "nc", "--out", str(out),
    )  # fmt: skip
    assert generated.exit_code == 0, generated.output
    stats = _sr(project, "surface", "stats", "--experiment", DRAFT, "--surface-file", str(out))
    assert stats.exit_code == 0, stats.output
    # 8 intents, 8 distinct plans; 5 goals are new, so at most 3 of 8 goal routes are shared.
    assert (
        "also used by the evaluation surface: 0/8 (0%) distinct gold plans, 2/8 (25%) goal routes"
        in stats.output
    )
    assert (
        "also used by the dev surface: 2/8 (25%) distinct gold plans, 2/8 (25%) goal routes" in stats.output
    )
