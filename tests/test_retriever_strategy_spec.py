"""retriever.yaml's strategy entry: one line per problem, at the offending key; 0.14 has none."""

from __future__ import annotations

from pathlib import Path

from compiler.checks_retriever import check_strategy
from compiler.semantic_view import SpecView
from compiler.yaml_loader import load_yaml_text

ROOT = Path(__file__).resolve().parents[1]
BASE = (ROOT / "spec" / "0.14" / "retriever.yaml").read_text(encoding="utf-8")


def _problems(strategy_yaml: str) -> list[str]:
    document = load_yaml_text(BASE + strategy_yaml, file="spec/retriever.yaml")
    return [f"{issue} [{issue.code}]" for issue in check_strategy(SpecView({"retriever": document}))]


def _line(fragment: str) -> int:
    text = BASE + STRATEGY
    return next(i for i, line in enumerate(text.splitlines(), 1) if fragment in line)


STRATEGY = """strategy:
  code: typed_state
  params:
    routes:
      units: {field: input_units, weight: 1.0}
    demote: redundant
"""


def test_no_strategy_is_text_concat_and_no_problem() -> None:
    assert _problems("") == []


def test_a_valid_strategy_passes() -> None:
    assert _problems(STRATEGY) == []
    assert _problems("strategy: {code: dense, params: {state_weight: 0.5}}\n") == []


def test_an_unknown_code_is_one_line_at_the_code() -> None:
    (line,) = _problems(STRATEGY.replace("typed_state", "typed_stat"))
    assert line.startswith(f"spec/retriever.yaml:{_line('code: typed_state')}:9: strategy.code: 'typed_stat'")
    assert "known: dense, hybrid, text_concat, typed_state" in line and line.endswith("[RT101]")


def test_bad_params_point_at_their_keys() -> None:
    problems = _problems(
        STRATEGY.replace("demote: redundant", "demote: always").replace("weight: 1.0", "weight: -1")
    )
    assert len(problems) == 2
    assert any(
        p.startswith(f"spec/retriever.yaml:{_line('demote: redundant')}:") and "strategy.params.demote" in p
        for p in problems
    )
    assert any("strategy.params.routes.units.weight" in p for p in problems)
    assert all(p.endswith("[RT102]") for p in problems)


def test_a_route_to_a_field_the_spec_lacks_is_refused() -> None:
    (line,) = _problems(STRATEGY.replace("field: input_units", "field: nowhere"))
    assert "strategy.params.routes.units.field: 'nowhere' is not a field of this retriever spec" in line
    assert line.endswith("[RT103]")


def test_unknown_params_are_refused() -> None:
    (line,) = _problems("strategy: {code: text_concat, params: {alpha: 1}}\n")
    assert "strategy.params.alpha" in line
