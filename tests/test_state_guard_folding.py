"""The guard folds case, separators, camelCase and look-alike letters before it compares (issue 18, D13).

Every registered name of the catalogs must still pass (tests/test_state_catalog.py); these pin the
spellings that used to slip through and the ordinary names that must not be caught.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from runtime.state import ContractViolation, ObservableState
from runtime.state.guard import (
    GuardVocabulary,
    active_guard,
    forbidden_item_in,
    install_guard,
    normalise,
)

REPO = Path(__file__).resolve().parents[1]

CAUGHT = {
    "goldNextRoute": "gold_next_route_id",
    "GoldNextRouteID": "gold_next_route_id",
    "nextroute.weather.forecast.daily.v2": "gold_next_route_id",
    "x.nextRoute.v1": "gold_next_route_id",
    "goldplan": "oracle_task_graph",
    "TaskGraph": "oracle_task_graph",
    "SR5STATEAWARE": "condition_name",
    "SR5-STATE-AWARE": "condition_name",
    "sr_5_state_aware": "condition_name",
    "STATE-AWARE": "condition_name",
    "stateAware": "condition_name",
    "run.sr5stateaware.7": "condition_name",
    "SRPROGRESSIVESTATIC": "condition_name",
    "progressive_static": "condition_name",
    "C3": "condition_name",
    "c5": "condition_name",
    "score:0.93": "schemarouter_rank",
    "rank.1": "schemarouter_rank",
    "Rank-1": "schemarouter_rank",
    "position_3": "schemarouter_rank",
    "rankScore": "schemarouter_rank",
    "answer_is_74": "hidden_expected_answer",
    "answer=74": "hidden_expected_answer",
    "expectedAnswer74": "hidden_expected_answer",
    "EXPECTED_ANSWER": "hidden_expected_answer",
    "hiddenFacts": "hidden_reference_facts",
    "referencefacts": "hidden_reference_facts",
    "ｇｏｌｄ＿ｎｅｘｔ＿ｒｏｕｔｅ": "gold_next_route_id",  # fullwidth (NFKC)
    "gоld_plan": "oracle_task_graph",  # Cyrillic o
    "Ѕcore": "schemarouter_rank",  # Cyrillic S
    "ﬁnal.expected_answer": "hidden_expected_answer",  # ligature fi (NFKC)
    "world": "hidden_reference_facts",
    "expected_world_v2": "hidden_reference_facts",
    "future_routes": "future_required_route_ids",
    "remainingRoutes": "future_required_route_ids",
}

PASSES = [
    "latitude",
    "weather.forecast.daily.v2",
    "geo.place_id",
    "position_accuracy",
    "world_region",
    "ranking_window",
    "c3po",
    "score_card_title",
    "answer_text_language",
    "plan_name",
    "state",
    "aware",
    "static",
    "route_id",
]


@pytest.mark.parametrize("text", sorted(CAUGHT))
def test_spellings_are_caught(text: str) -> None:
    assert forbidden_item_in(text) == CAUGHT[text]


@pytest.mark.parametrize("text", PASSES)
def test_ordinary_names_pass(text: str) -> None:
    assert forbidden_item_in(text) is None


def test_normalise_splits_camel_case_and_digits() -> None:
    assert normalise("expectedAnswer74") == "expected_answer_74"
    assert normalise("SR5STATEAWARE") == "sr_5_stateaware"
    assert normalise("Gold-Next.Route") == "gold_next_route"


def test_the_guard_vocabulary_is_the_compiled_experiments() -> None:
    conditions = yaml.safe_load((REPO / "spec" / "0.14" / "conditions.yaml").read_text(encoding="utf-8"))
    vocabulary = active_guard().vocabulary
    assert vocabulary.condition_codes == tuple(c["code"] for c in conditions["conditions"])
    assert vocabulary.condition_names == tuple(
        c["id"] for c in conditions["conditions"] if c["retrieval_query"] != "none"
    )
    assert vocabulary.condition_parts == ("PROGRESSIVE-STATIC", "STATE-AWARE")
    contract = yaml.safe_load((REPO / "spec" / "0.14" / "state_contract.yaml").read_text(encoding="utf-8"))
    assert dict(vocabulary.forbidden) == {f["id"]: tuple(f["aliases"]) for f in contract["forbidden"]}


def test_a_successors_vocabulary_is_enforced_and_no_guard_means_no_state() -> None:
    from runtime.state import guard

    before = active_guard().vocabulary
    renamed = GuardVocabulary(
        forbidden=(*before.forbidden, ("secret_plan", ("masterplan",))),
        condition_names=("XR-9-TYPED-STATE",),
        condition_codes=("K1",),
    )
    try:
        install_guard(renamed)
        assert forbidden_item_in("masterPlan") == "secret_plan"
        assert forbidden_item_in("typed-state") == "condition_name"
        assert forbidden_item_in("K1") == "condition_name"
        assert forbidden_item_in("C3") is None  # not a condition of this experiment
        saved, guard._active = guard._active, None
        try:
            with pytest.raises(ContractViolation, match="no state contract is installed"):
                ObservableState.initial()
        finally:
            guard._active = saved
    finally:
        install_guard(before)
