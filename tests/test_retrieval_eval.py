"""Retrieval on any catalog file: `sr retrieve --catalog-file` returns sensible operations of imported
catalogs for hand-written queries, and `sr retrieval eval` scores every strategy on a 30-query file with
bootstrap intervals. Also the metrics themselves, the bootstrap's determinism and bad query files."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from extras import require_module
from typer.testing import CliRunner

from runtime.core.errors import SchemaRouterError
from runtime.retrieval.evaluation import estimate, query_metrics, resample_matrix
from runtime.retrieval.strategy import strategy_codes
from runtime.spec_model.retriever import RetrieverSpec
from schemarouter.application.catalog_import import import_catalog
from schemarouter.application.retrieval_io import compiled_experiment
from schemarouter.application.retrieval_queries import read_queries
from schemarouter.application.retrieval_strategies import one_strategy
from schemarouter.cli.app import app
from schemarouter.project import ProjectPaths

require_module("openapi_spec_validator", extra="catalog-import")
require_module("mcp.types", extra="catalog-import")

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "import"
QUERIES = FIXTURES / "acme_commerce.queries.jsonl"
SOURCES = {
    "openapi": FIXTURES / "acme_commerce.openapi.yaml",
    "mcp": FIXTURES / "workspace_tools.mcp.json",
    "openai": FIXTURES / "travel_assistant.openai.json",
}


def sr(*args: str):
    return CliRunner().invoke(app, ["--project-dir", str(REPO), *args], terminal_width=250)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("imported")
    out = {}
    for code, source in SOURCES.items():
        out[code] = tmp / f"{code}.json"
        import_catalog(REPO, source_format=code, source=source, out=out[code])
    return out


@pytest.fixture(scope="module")
def spec() -> RetrieverSpec:
    return RetrieverSpec.from_compiled(compiled_experiment(ProjectPaths.at(REPO)))


HAND_WRITTEN = [
    ("openapi", "ship the parcel with UPS and give me the tracking number", "shipments.create_shipment"),
    ("openapi", "send the invoice PDF to the customer by email", "invoices.send_invoice_email"),
    ("openapi", "is product X still in stock in the Rotterdam warehouse", "inventory.get_stock_level"),
    ("openapi", "how much is shipping for 2 kg from postal code 1011 to 75001", "shipping.rates.quote.v2"),
    ("openapi", "cancel order 4411, the customer changed their mind", "orders.cancel_order"),
    ("openapi", "customer reviews and ratings of the blender", "reviews.list_product_reviews"),
    ("mcp", "permanently remove the file notes.txt", "workspace_tools.delete_file"),
    ("mcp", "what will the weather be tomorrow at 52.37 N 4.89 E", "workspace_tools.get_weather_forecast"),
    ("mcp", "commit my staged changes with the message 'fix typo'", "vcs.git.commit.v1"),
    ("mcp", "rename report.md to final-report.md", "workspace_tools.move_file"),
    ("mcp", "find the emails from the landlord about the deposit", "workspace_tools.search_emails"),
    ("openai", "reserve a hotel room in Lisbon for three nights", "travel_assistant.book_hotel"),
    ("openai", "book a table for four at the trattoria tonight at 8", "travel_assistant.reserve_table"),
    (
        "openai",
        "do I need a visa to travel to Japan with a German passport",
        "travel_assistant.check_visa_requirements",
    ),
    ("openai", "how many dollars is one euro today", "travel_assistant.get_exchange_rate"),
]


@pytest.mark.parametrize(("catalog", "query", "expected"), HAND_WRITTEN)
def test_hand_written_queries_find_their_operation_in_the_top_5(files, spec, catalog, query, expected):
    from runtime.catalog.io import load_catalog_file

    built = one_strategy(load_catalog_file(files[catalog])[0], spec, None)
    top5 = built.static.rank(query, 5).route_ids
    assert expected in top5, top5


def test_sr_retrieve_takes_a_catalog_file(files):
    result = sr(
        "retrieve", "--catalog-file", str(files["openapi"]), "refund the customer's payment", "-k", "3"
    )
    assert result.exit_code == 0, result.output
    assert "catalog 51 · original" in result.output and "payments.refund_payment" in result.output
    missing = sr("retrieve", "--catalog-file", str(files["openapi"].with_name("nope.json")), "x")
    assert missing.exit_code == 1 and "nope.json: cannot read the catalog file" in missing.output


def test_retrieval_eval_scores_every_strategy_on_30_queries(files, tmp_path):
    out = tmp_path / "eval.json"
    result = sr(
        "retrieval", "eval", "--catalog-file", str(files["openapi"]), "--queries", str(QUERIES),
        "--resamples", "2000", "--json", str(out), "--markdown", str(tmp_path / "eval.md"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["queries"] == {"file": str(QUERIES), "count": 30, "with_state": 8}
    assert report["bootstrap"]["seed"] == {"name": "retrieval_eval.bootstrap", "value": 20261201}
    codes = sorted({r["strategy"] for r in report["results"]} | {n["strategy"] for n in report["not_built"]})
    assert codes == strategy_codes()
    for r in report["results"]:
        assert r["queries"] == (30 if r["use"] == "query" else 8)
        for m in r["metrics"].values():
            assert 0 <= m["ci_low"] <= m["mean"] <= m["ci_high"] <= 1
    by = {(r["strategy"], r["use"]): r["metrics"] for r in report["results"]}
    # the experiment's own lexical retriever finds nearly every operation of these queries
    assert by[("text_concat", "query")]["recall_at_5"]["mean"] >= 0.8
    assert "R@5" in result.output and "text_concat" in result.output and "query+state" in result.output
    table = (tmp_path / "eval.md").read_text(encoding="utf-8")
    header = "| strategy | use | queries | S@1 | S@5 | S@10 | R@1 | R@5 | R@10 | nDCG@10 | MRR |"
    assert header in table
    assert "S@k: success@k" in table and "R@k: recall@k" in table  # the legend says which is which
    assert table.count("| text_concat |") == 2


def test_ranking_metrics_on_a_hand_computed_example():
    m = query_metrics(["a", "x", "b", "y", "z", "w", "v", "u", "t", "s", "c"], frozenset({"b", "c", "a"}))
    assert (m["success_at_1"], m["success_at_5"], m["success_at_10"]) == (1.0, 1.0, 1.0)
    assert m["recall_at_1"] == pytest.approx(1 / 3)
    assert m["recall_at_5"] == pytest.approx(2 / 3)
    assert m["recall_at_10"] == pytest.approx(2 / 3)  # c is 11th
    dcg = 1 + 1 / math.log2(4)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert m["ndcg_at_10"] == pytest.approx(dcg / idcg)
    assert m["mrr"] == 1.0
    none = query_metrics(["x", "y"], frozenset({"a"}))
    assert set(none.values()) == {0} and len(none) == 8
    late = query_metrics(["x", "y", "z", "w", "v", "a"], frozenset({"a", "b"}))
    assert (late["success_at_1"], late["success_at_5"], late["success_at_10"]) == (0.0, 0.0, 1.0)
    assert late["recall_at_10"] == 0.5  # success@10 is 1 where recall@10 is 0.5
    assert query_metrics(["x", "a"], frozenset({"a"}))["mrr"] == 0.5


def test_the_bootstrap_is_deterministic_under_its_seed_and_brackets_the_mean():
    assert (resample_matrix(8, seed=7, resamples=500) == resample_matrix(8, seed=7, resamples=500)).all()
    assert (resample_matrix(8, seed=7, resamples=500) != resample_matrix(8, seed=8, resamples=500)).any()
    values = [0.0, 1.0, 1.0, 0.5, 0.0, 1.0, 0.25, 1.0]
    a = estimate(values, resample_matrix(len(values), seed=7, resamples=1000))
    assert a == estimate(values, resample_matrix(len(values), seed=7, resamples=1000))
    assert a.low < a.mean < a.high and a.mean == pytest.approx(sum(values) / len(values))


def _queries(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_bad_query_file_is_one_line_per_problem(files, tmp_path):
    from runtime.catalog.io import load_catalog_file

    catalog = load_catalog_file(files["openapi"])[0]
    path = _queries(
        tmp_path,
        '{"id": "a", "query": "x", "relevant": ["orders.get_order"]}',
        '{"id": "a", "query": "y", "relevant": ["orders.nope"]}',
        '{"id": "b", "query": "z", "relevant": []}',
        '{"id": "c", "query": "w", "relevant": ["orders.get_order"], '
        '"state": {"executed_route_ids": ["x.y"], '
        '"last_execution_status": "ok", "last_error_class": null, "task_incomplete": true}}',
        '{"id": "d", "query": "v", "relevant": ["orders.get_order"], "rank": 1}',
        "not json",
    )
    with pytest.raises(SchemaRouterError) as err:
        read_queries(path, catalog)
    assert str(err.value).splitlines() == [
        f"{path}:2:8: id: 'a' is also the id of line 1",
        f"{path}:2:40: relevant[0]: 'orders.nope' is neither a route ID nor an openapi tool name of "
        "the catalog",
        f"{path}:3:39: relevant: needs a non-empty list of route IDs",
        f"{path}:4:94: state.executed_route_ids[0]: state contract violation at executed_route_ids[0]: "
        "'x.y' is not a registered route ID of the catalog",
        f"{path}:5:69: rank: unknown key (keys: id, query, relevant, state)",
        f"{path}:6:1: not JSON: Expecting value",
    ]


def test_the_command_s_defaults_are_the_application_s():
    from schemarouter.application import retrieval_eval
    from schemarouter.cli import retrieval_eval_commands as cli

    assert (cli.SEED_NAME, cli.DEFAULT_SEED, cli.DEFAULT_RESAMPLES) == (
        retrieval_eval.SEED_NAME,
        retrieval_eval.DEFAULT_SEED,
        retrieval_eval.DEFAULT_RESAMPLES,
    )


def test_relevant_may_name_tools_by_their_source_names_and_id_is_optional(files, tmp_path):
    from runtime.catalog.io import load_catalog_file

    catalog = load_catalog_file(files["openapi"])[0]
    operation_id = catalog.by_route()["orders.get_order"].name
    path = _queries(
        tmp_path,
        f'{{"query": "x", "relevant": ["{operation_id}"]}}',
        '{"id": "mine", "query": "y", "relevant": ["orders.get_order"]}',
        '{"query": "z", "relevant": ["orders.get_order"]}',
    )
    queries = read_queries(path, catalog)
    assert [q.query_id for q in queries] == ["q0001", "mine", "q0003"]
    assert [q.relevant for q in queries] == [frozenset({"orders.get_order"})] * 3


def test_a_name_of_two_endpoints_is_refused_naming_the_candidates(files, tmp_path):
    from runtime.catalog.io import load_catalog_file

    catalog = load_catalog_file(files["openapi"])[0]
    first, second = catalog.endpoints[0], catalog.endpoints[1]
    # a catalog where one endpoint's tool name is another's route ID
    clashing = catalog.model_copy(
        update={"endpoints": (first.model_copy(update={"name": second.route_id}), *catalog.endpoints[1:])}
    )
    path = _queries(tmp_path, f'{{"query": "x", "relevant": ["{second.route_id}"]}}')
    with pytest.raises(SchemaRouterError) as err:
        read_queries(path, clashing)
    candidates = ", ".join(sorted([first.route_id, second.route_id]))
    assert str(err.value) == (
        f"{path}:1:29: relevant[0]: '{second.route_id}' is ambiguous: it names {candidates} (use a route ID)"
    )
