"""The refresh anatomy's key-name kinds apply only to a strategy that reads the state JSON as words.

0.14's text_concat analyses the call text, key names included, so "held by the key names" is a
question about it; typed_state reads the typed values, so for 0.15 the kinds are shown as not
applicable (null in report.json, n/a where printed), never as the text index's answer."""

from __future__ import annotations

from runtime.diagnostics.build import _refresh_anatomy
from runtime.diagnostics.episode_facts import EpisodeFacts, RefreshCall, RefreshSlot
from runtime.diagnostics.key_names import key_names_not_applicable
from runtime.retrieval.key_free import KeyFreeMatch


class _Probe:
    """Every key-less text matches one route only: the others are held by the key names."""

    def key_free_match(self, catalog: int, text: str, routes: tuple[str, ...]) -> KeyFreeMatch | None:
        return KeyFreeMatch(matched=frozenset(routes) & {"a"}, top=("a",))


def _facts() -> list[EpisodeFacts]:
    slots = tuple(
        RefreshSlot(turn=2, route_id=r, executed=r == "b", twin=False, needed=r == "a") for r in "abc"
    )
    return [
        EpisodeFacts(
            task_id="t",
            condition="C3",
            catalog=100,
            stratum="s",
            language="en",
            passed=False,
            ended_by="max_turns",
            points=(),
            cause="never_exposed",
            refreshes=(RefreshCall(turn=2, text='q\n{"k":"v"}', slots=slots),),
            dropped_required=False,
        )
    ]


def test_text_concat_reads_key_names_and_typed_state_does_not() -> None:
    assert key_names_not_applicable("text_concat") is None
    reason = key_names_not_applicable("typed_state")
    assert reason is not None and "typed_state does not read the state JSON's key names" in reason


def test_key_name_kinds_are_counted_for_text_concat_and_null_otherwise() -> None:
    counted = _refresh_anatomy(_facts(), ["C3"], [100], _Probe())  # type: ignore[arg-type]
    cell = counted["by_condition"]["C3"]["100"]
    assert cell["counts"]["key_names_only"] == 2 and cell["counts"]["key_names_decisive"] == 2
    assert "not_applicable" not in counted

    reason = key_names_not_applicable("typed_state")
    na = _refresh_anatomy(_facts(), ["C3"], [100], _Probe(), reason)  # type: ignore[arg-type]
    cell = na["by_condition"]["C3"]["100"]
    assert cell["counts"]["key_names_only"] is None and cell["shares"]["key_names_decisive"] is None
    assert cell["counts"]["executed"] == 1 and cell["counts"]["needed"] == 1  # the other kinds stay
    assert na["not_applicable"] == {"key_names_only": reason, "key_names_decisive": reason}
