"""Rankings are a pure function of catalog, spec and text: across builds, processes and ties."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from retrieval_support import frozen_spec, toy_index, twins
from retrieval_toy_catalog import TOY_CATALOG

from runtime.retrieval import RetrievalIndex, StateAwareRetriever, StaticRetriever
from runtime.state import ObservableState

QUERIES = (
    "What will the weather be tomorrow at the Eiffel Tower?",
    "Cancela mi pedido",
    "Bestellung archivieren",
    "내일 서울 날씨를 화씨로 알려줘",
    "注文を返金して",
    "把100美元换成欧元",
    "refund",
    "order",
)


def _rankings(index: RetrievalIndex) -> list[list[object]]:
    static, aware = StaticRetriever(index), StateAwareRetriever(index)
    state = ObservableState.initial().after_blocked("payments.refund.create.v1", "UNAUTHORIZED_DESTRUCTIVE")
    out: list[list[object]] = []
    for q in QUERIES:
        for call in (static.rank(q, 30), aware.rank(q, state, 5)):
            out.append([list(call.route_ids), list(call.scores)])
    return out


def test_two_independent_builds_rank_identically() -> None:
    first = RetrievalIndex.build(TOY_CATALOG, frozen_spec())
    second = RetrievalIndex.build(tuple(reversed(TOY_CATALOG.endpoints)), frozen_spec())
    assert _rankings(first) == _rankings(second)


def test_rankings_are_identical_in_another_process() -> None:
    here = Path(__file__).resolve().parent
    script = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(here)!r})\n"
        "import conftest  # noqa: F401  (installs the state contract)\n"
        "from retrieval_support import toy_index\n"
        "from test_retrieval_determinism import _rankings\n"
        "print(json.dumps(_rankings(toy_index())))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert json.loads(done.stdout) == json.loads(json.dumps(_rankings(toy_index())))


def test_ties_are_broken_by_route_id() -> None:
    index = RetrievalIndex.build(list(reversed(twins(12))), frozen_spec())
    ranking = index.search("send a message", 12)
    assert len(set(ranking.scores)) == 1, "the twins must tie for this test to mean anything"
    assert list(ranking.route_ids) == sorted(ranking.route_ids)


def test_ties_straddling_the_cut_off_keep_the_lowest_route_ids() -> None:
    # 300 tied endpoints: the top 5 must be the 5 smallest route IDs, not any 5 of them.
    endpoints = twins(300)
    index = RetrievalIndex.build(list(reversed(endpoints)), frozen_spec())
    expected = sorted(e.route_id for e in endpoints)
    for depth in (1, 5, 30):
        assert index.search("send a message", depth).route_ids == tuple(expected[:depth])


def test_scores_order_before_route_ids() -> None:
    ranking = toy_index().search("refund a payment", 12)
    assert ranking.route_ids[:2] == ("payments.refund.create.v1", "payments.refund.quote.v1")
    pairs = list(zip(ranking.scores, ranking.route_ids, strict=True))
    assert pairs == sorted(pairs, key=lambda p: (-p[0], p[1]))
