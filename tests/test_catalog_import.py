"""`sr catalog import`: the three importers on realistic sources written for these tests
(tests/fixtures/import/), what they read and what they derive, and broken sources: one line each,
exit 1, no traceback, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from extras import require_module
from typer.testing import CliRunner

from runtime.catalog.io import load_catalog_file
from runtime.catalog.model import Catalog
from schemarouter.cli.app import app

pytestmark = pytest.mark.slow  # seconds of work: scheduled first (tests/conftest.py)

require_module("openapi_spec_validator", extra="catalog-import")
require_module("mcp.types", extra="catalog-import")

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "import"
OPENAPI = FIXTURES / "acme_commerce.openapi.yaml"
MCP = FIXTURES / "workspace_tools.mcp.json"
OPENAI = FIXTURES / "travel_assistant.openai.json"


def sr(*args: str):
    return CliRunner().invoke(app, ["--project-dir", str(REPO), *args], terminal_width=200)


def imported(tmp_path: Path, source_format: str, source: Path, name: str = "catalog.json") -> Catalog:
    out = tmp_path / name
    result = sr("catalog", "import", str(source), "--from", source_format, "--out", str(out))
    assert result.exit_code == 0, result.output
    catalog, _ = load_catalog_file(out)
    return catalog


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory) -> dict[str, Catalog]:
    tmp = tmp_path_factory.mktemp("catalogs")
    return {
        "openapi": imported(tmp, "openapi", OPENAPI),
        "mcp": imported(tmp, "mcp", MCP, "mcp.json"),
        "openai": imported(tmp, "openai", OPENAI, "openai.json"),
    }


def test_the_sources_are_of_realistic_size():
    doc = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    methods = {"get", "put", "post", "patch", "delete"}
    operations = [op for item in doc["paths"].values() for m, op in item.items() if m in methods]
    text = OPENAPI.read_text(encoding="utf-8")
    assert len(operations) >= 40 and "$ref" in text and "allOf" in text and "requestBody" in text
    assert len(json.loads(MCP.read_text(encoding="utf-8"))["result"]["tools"]) >= 20
    assert len(json.loads(OPENAI.read_text(encoding="utf-8"))) >= 10


def test_openapi_operations_become_endpoints_with_refs_allof_parameters_and_bodies(catalogs):
    catalog = catalogs["openapi"]
    assert catalog.size == 51 and catalog.source is not None and catalog.source.format == "openapi"
    assert catalog.source.title == "Acme Commerce API" and catalog.source.version == "2.3.0"
    by_name = catalog.by_name()
    orders = by_name["listCustomerOrders"]
    assert orders.route_id == "customers.list_customer_orders" and "route_id" in orders.derived
    inputs = {f.name: f for f in orders.inputs}
    # a path parameter through a $ref'd components/parameters entry, with its x-semantic-id
    assert inputs["customerId"].required and inputs["customerId"].semantic_id == "commerce.customer_id"
    assert inputs["customerId"].derived == ()
    assert inputs["status"].enum == ("pending", "paid", "shipped", "delivered", "cancelled")
    assert not inputs["status"].required and inputs["status"].derived == ("semantic_id",)
    assert inputs["status"].semantic_id == "customers.status"
    create = {f.name: f for f in by_name["createOrder"].inputs}
    assert create["customer_id"].required and create["items"].json_type == "array"
    assert create["shipping_address"].json_type == "object" and not create["coupon_code"].required
    assert create["Idempotency-Key"].json_type == "string"  # a header parameter
    # outputs: the 200 response's Order = allOf[Timestamps, OrderInput, {order_id, status, total}]
    outputs = {f.name: f for f in by_name["getOrder"].outputs}
    assert {"created_at", "customer_id", "items", "order_id", "status", "total"} <= set(outputs)
    assert outputs["order_id"].stable_identifier and not outputs["created_at"].stable_identifier
    assert by_name["getOrder"].errors == ("AUTH_INVALID", "NOT_FOUND")
    # a request body that is an allOf of two inline objects
    review = {f.name: f for f in by_name["createProductReview"].inputs}
    assert review["customer_id"].required and review["rating"].required and not review["text"].required


def test_openapi_side_effects_come_from_methods_unless_declared(catalogs):
    by_name = catalogs["openapi"].by_name()
    assert by_name["getOrder"].side_effect == "read" and "side_effect" in by_name["getOrder"].derived
    assert by_name["createOrder"].side_effect == "write"
    assert by_name["updateCustomer"].side_effect == "write"
    assert by_name["deleteCustomer"].side_effect == "destructive"
    cancel = by_name["cancelOrder"]  # POST, declared destructive with x-side-effect
    assert cancel.side_effect == "destructive" and "side_effect" not in cancel.derived
    rates = by_name["getShippingRates"]
    assert rates.route_id == "shipping.rates.quote.v2" and "route_id" not in rates.derived
    weight = {f.name: f for f in rates.inputs}["weight_kg"]
    assert weight.unit == "kg" and weight.json_type == "number" and weight.required


def test_mcp_tools_are_read_with_their_annotations_and_output_schemas(catalogs):
    catalog = catalogs["mcp"]
    assert catalog.size == 25
    by_name = catalog.by_name()
    assert by_name["read_file"].side_effect == "read"  # readOnlyHint
    assert by_name["edit_file"].side_effect == "write"  # destructiveHint false
    assert by_name["delete_file"].side_effect == "destructive"  # destructiveHint true
    assert by_name["run_sql_query"].side_effect == "destructive"  # no annotations: the MCP defaults
    assert all("side_effect" in e.derived for e in catalog.endpoints)
    assert by_name["read_file"].summary == "Read file" and "summary" not in by_name["read_file"].derived
    assert by_name["git_status"].summary.startswith("Show the working tree status")
    assert "summary" in by_name["git_status"].derived
    commit = by_name["git_commit"]
    assert commit.route_id == "vcs.git.commit.v1" and "route_id" not in commit.derived  # _meta x-route-id
    assert [(f.name, f.semantic_id, f.stable_identifier) for f in commit.outputs] == [
        ("commit_sha", "vcs.commit_sha", False)
    ]
    forecast = by_name["get_weather_forecast"]
    assert [f.semantic_id for f in forecast.inputs] == [
        "geo.latitude",
        "geo.longitude",
        "workspace_tools.days",
    ]
    assert forecast.outputs[0].unit == "degC"


def test_openai_tools_in_both_shapes_with_side_effects_derived_from_the_name(catalogs):
    catalog = catalogs["openai"]
    assert catalog.size == 12
    by_name = catalog.by_name()
    assert by_name["search_flights"].side_effect == "read"
    assert by_name["book_flight"].side_effect == "write"
    assert by_name["cancel_booking"].side_effect == "destructive"
    flights = {f.name: f for f in by_name["search_flights"].inputs}
    assert flights["return_date"].json_type == "string" and not flights["return_date"].required
    assert by_name["check_visa_requirements"].route_id == "travel_assistant.check_visa_requirements"
    assert all(e.outputs == () for e in catalog.endpoints)


def test_an_import_is_byte_identical_and_its_schemas_render(tmp_path, catalogs):
    first = tmp_path / "a.json"
    second = tmp_path / "b.json"
    for out in (first, second):
        assert sr("catalog", "import", str(OPENAPI), "--from", "openapi", "--out", str(out)).exit_code == 0
    assert first.read_bytes() == second.read_bytes()
    schema = catalogs["openapi"].by_name()["createOrder"].tool_schema()
    assert schema["function"]["parameters"]["required"] == ["customer_id", "items"]


# ---- broken sources: one line each ---------------------------------------------------------------


def _broken(tmp_path: Path, name: str, text: str, source_format: str, *options: str) -> tuple[int, str, Path]:
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "out.json"
    result = sr("catalog", "import", str(source), "--from", source_format, "--out", str(out), *options)
    assert "Traceback" not in result.output
    assert not out.exists()  # nothing written
    return result.exit_code, result.output, source


def test_a_dangling_ref_is_one_line_naming_the_operation(tmp_path):
    text = OPENAPI.read_text(encoding="utf-8")
    marker = "$ref: '#/components/schemas/Invoice'"
    assert marker in text
    code, output, source = _broken(
        tmp_path, "api.yaml", text.replace(marker, "$ref: '#/components/schemas/Invoise'", 1), "openapi"
    )
    assert code == 1
    assert output == (  # at the line and column of the $ref's schema
        f"{source}:890:17: GET /orders/{{orderId}}/invoice (getOrderInvoice): "
        "$ref '#/components/schemas/Invoise' does not resolve "
        "(at paths./orders/{orderId}/invoice.get.responses.200.content.application/json.schema)\n"
    )


def test_a_duplicate_operation_id_is_one_line_naming_both_operations(tmp_path):
    text = OPENAPI.read_text(encoding="utf-8").replace(
        "operationId: listCustomerOrders", "operationId: listCustomers"
    )
    code, output, source = _broken(tmp_path, "api.yaml", text, "openapi")
    assert code == 1
    assert output == (
        f"{source}: GET /customers/{{customerId}}/orders (listCustomers): operationId 'listCustomers' is not "
        "unique (also GET /customers)\n"
    )


def test_an_mcp_tool_without_a_name_is_one_line(tmp_path):
    message = json.loads(MCP.read_text(encoding="utf-8"))
    del message["result"]["tools"][3]["name"]
    code, output, source = _broken(tmp_path, "tools.json", json.dumps(message), "mcp")
    assert (code, output) == (1, f"{source}: tools[3]: the tool has no 'name'\n")


def test_an_openai_tool_without_a_name_is_one_line(tmp_path):
    tools = json.loads(OPENAI.read_text(encoding="utf-8"))
    del tools[2]["function"]["name"]
    code, output, source = _broken(tmp_path, "tools.json", json.dumps(tools), "openai")
    assert (code, output) == (1, f"{source}: tools[2]: the tool has no 'name'\n")


def _openapi(operation: dict) -> str:
    return json.dumps(
        {
            "openapi": "3.0.3",
            "info": {"title": "t", "version": "1"},
            "paths": {"/things/{id}": {"post": operation}},
        }
    )


ID = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
OK = {"200": {"description": "ok"}}


@pytest.mark.parametrize(
    ("operation", "message"),
    [
        (
            {
                "operationId": "t",
                "parameters": [ID, {"name": "s", "in": "cookie", "schema": {"type": "string"}}],
                "responses": OK,
            },
            "POST /things/{id} (t): cookie parameter 's' is not supported",
        ),
        (
            {
                "operationId": "t",
                "parameters": [ID],
                "requestBody": {
                    "content": {
                        "application/json": {"schema": {"oneOf": [{"type": "object"}, {"type": "string"}]}}
                    }
                },
                "responses": OK,
            },
            "POST /things/{id} (t): the request body uses oneOf at the top level",
        ),
        (
            {
                "operationId": "t",
                "parameters": [ID],
                "requestBody": {"content": {"text/plain": {"schema": {"type": "string"}}}},
                "responses": OK,
            },
            "POST /things/{id} (t): request body media types ['text/plain'] are not supported "
            "(JSON, form or binary only)",
        ),
        (
            {
                "operationId": "t",
                "parameters": [ID],
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"id": {"type": "string"}, "body_id": {"type": "string"}},
                            }
                        }
                    }
                },
                "responses": OK,
            },
            "POST /things/{id} (t): 'id' is both a parameter and a request body property, and 'body_id' "
            "is taken",
        ),
        (
            {
                "operationId": "t",
                "parameters": [ID],
                "responses": {"200": {"$ref": "other.yaml#/responses/Ok"}},
            },
            ":1:233: POST /things/{id} (t): $ref 'other.yaml#/responses/Ok' points outside the document "
            "(only '#/...' is supported) (at paths./things/{id}.post.responses.200)",
        ),
        (
            {"operationId": "t", "parameters": [ID], "responses": "none"},
            ":1:225: POST /things/{id} (t): not valid OpenAPI 3.0.3: 'none' is not of type 'object' "
            "(at paths./things/{id}.post.responses)",
        ),
    ],
)
def test_unsupported_constructs_are_one_line_naming_the_operation_and_the_construct(
    tmp_path, operation, message
):
    code, output, source = _broken(tmp_path, "api.json", _openapi(operation), "openapi", "--strict")
    # A message starting ":LINE:COL:" is located (a $ref, the validator); the others name the operation.
    located = message if message.startswith(":") else f": {message}"
    assert (code, output) == (1, f"{source}{located}\n")


def test_other_bad_sources_are_one_line(tmp_path):
    code, output, source = _broken(tmp_path, "swagger.json", json.dumps({"swagger": "2.0"}), "openapi")
    assert output == f"{source}: (document): only OpenAPI 3 documents are supported (swagger 2.0)\n"
    code, output, source = _broken(tmp_path, "dup.yaml", "openapi: 3.0.3\nopenapi: 3.1.0\n", "openapi")
    assert output == f"{source}:2:1: openapi: duplicate key 'openapi' (first at line 1)\n"
    code, output, source = _broken(tmp_path, "t.json", '{"tools": [{"type": "web_search"}]}', "openai")
    assert output == f"{source}: tools[0]: tool type 'web_search' is not supported (only 'function')\n"
    code, output, source = _broken(tmp_path, "t.json", '{"tools": [', "mcp")
    assert code == 1 and output.startswith(f"{source}:1:") and "not valid JSON" in output
    code, output, _ = _broken(tmp_path, "t.json", "[]", "xml")
    assert output == "--from xml: no importer of that name; importers: mcp, openai, openapi\n"


def test_a_failed_import_leaves_an_existing_catalog_untouched(tmp_path):
    out = tmp_path / "catalog.json"
    out.write_text("previous", encoding="utf-8")
    bad = tmp_path / "t.json"
    bad.write_text('[{"type": "function", "function": {}}]', encoding="utf-8")
    result = sr("catalog", "import", str(bad), "--from", "openai", "--out", str(out))
    assert result.exit_code == 1 and out.read_text(encoding="utf-8") == "previous"


# ---- hostile sources: whatever a file holds, the answer is a catalog or one clean error ----------

JUNK = [None, 1, 2.5, True, "x", "", [], {}, [1], {"a": 1}, {"$ref": "#/nope"}, {"$ref": 5},
        {"type": "weird"}, {"allOf": 3}, {"properties": []}, {"type": ["string", "integer"]},
        {"anyOf": [1]}, {"enum": [1, 2]}, {"$ref": "#/info/title/x"}]  # fmt: skip


def _paths(node, path=()):
    yield path
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in children:
        yield from _paths(value, (*path, key))


@pytest.mark.parametrize("source_format", ["openapi", "mcp", "openai"])
def test_mutated_sources_give_a_catalog_or_one_clean_error(tmp_path, source_format):
    import copy
    import random

    from runtime.catalog.importers import import_catalog_file
    from runtime.core.errors import SchemaRouterError

    source = {"openapi": OPENAPI, "mcp": MCP, "openai": OPENAI}[source_format]
    doc = yaml.safe_load(source.read_text(encoding="utf-8"))
    paths = [p for p in _paths(doc) if p]
    rng = random.Random(f"import-fuzz-{source_format}")
    outcomes = {"catalog": 0, "error": 0}
    for trial in range(80):
        mutated = copy.deepcopy(doc)
        for _ in range(rng.randint(1, 3)):
            path = rng.choice(paths)
            node = mutated
            try:
                for key in path[:-1]:
                    node = node[key]
                node[path[-1]] = copy.deepcopy(rng.choice(JUNK))
            except (KeyError, IndexError, TypeError):
                continue
        file = tmp_path / f"{trial}.json"
        file.write_text(json.dumps(mutated), encoding="utf-8")
        try:
            import_catalog_file(source_format, file)
            outcomes["catalog"] += 1
        except SchemaRouterError as err:
            assert len(str(err).splitlines()) >= 1 and str(err).startswith(str(file))
            outcomes["error"] += 1
    assert outcomes["error"] > 0 and outcomes["catalog"] > 0


def test_a_missing_extra_is_one_line_naming_it(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "openapi_spec_validator", None)
    monkeypatch.setitem(sys.modules, "mcp.types", None)
    for code, source in (("openapi", OPENAPI), ("mcp", MCP)):
        result = sr("catalog", "import", str(source), "--from", code, "--out", str(tmp_path / "c.json"))
        module = "openapi-spec-validator" if code == "openapi" else "mcp"
        assert result.exit_code == 1 and result.output == (
            f"--from {code} needs the Python package {module!r}: pip install -e '.[catalog-import]' "
            f"(or pip install {module})\n"
        )
    assert not (tmp_path / "c.json").exists()


# ---- real documents: skipped, not refused ----------------------------------------------------------

REAL = FIXTURES / "real"
PETSTORE = REAL / "swagger_petstore_v3.openapi.yaml"
GITHUB_MCP = REAL / "github_mcp_server.tools_list.json"
COOKIE = {
    "operationId": "withCookie",
    "parameters": [ID, {"name": "s", "in": "cookie", "schema": {"type": "string"}}],
    "responses": OK,
}


def _two_operations() -> str:
    doc = json.loads(_openapi(COOKIE))
    doc["paths"]["/things"] = {"get": {"operationId": "listThings", "responses": OK}}
    return json.dumps(doc)


def test_an_operation_the_catalog_cannot_hold_is_skipped_with_one_line_naming_it(tmp_path):
    source = tmp_path / "api.json"
    source.write_text(_two_operations(), encoding="utf-8")
    out = tmp_path / "out.json"
    result = sr(
        "catalog", "import", str(source), "--from", "openapi", "--out", str(out), "--domain", "things"
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "skipped POST /things/{id} (withCookie): cookie parameter 's' is not supported"
    assert "2 operations: 1 imported, 1 skipped (POST /things/{id} (withCookie))" in lines
    assert not any("--domain" in line for line in lines)  # given, so not suggested
    assert [e.name for e in load_catalog_file(out)[0].endpoints] == ["listThings"]


def test_strict_refuses_the_document_instead(tmp_path):
    code, output, source = _broken(tmp_path, "api.json", _two_operations(), "openapi", "--strict")
    assert (code, output) == (
        1,
        f"{source}: POST /things/{{id}} (withCookie): cookie parameter 's' is not supported\n",
    )


def test_swagger_petstore_v3_imports_whole_with_binary_list_and_renamed_inputs(tmp_path):
    require_module("openapi_spec_validator", extra="catalog-import")
    out = tmp_path / "petstore.json"
    result = sr("catalog", "import", str(PETSTORE), "--from", "openapi", "--out", str(out))
    assert result.exit_code == 0, result.output
    print(result.output)
    assert "19 operations: 19 imported, 0 skipped" in result.output.splitlines()
    assert "pass --domain NAME" in result.output  # the default domain is the file name's: said so
    by_name = load_catalog_file(out)[0].by_name()
    upload = {f.name: f for f in by_name["uploadFile"].inputs}
    assert upload["body"].json_type == "string" and "application/octet-stream" in upload["body"].description
    assert [(f.name, f.json_type) for f in by_name["createUsersWithListInput"].inputs] == [("body", "array")]
    update = [f.name for f in by_name["updateUser"].inputs]
    assert update[0] == "username" and "body_username" in update and update.count("username") == 1
    assert {f.name: f.semantic_id for f in by_name["updateUser"].inputs}[
        "body_username"
    ] == "user.body_username"


def test_github_mcp_server_tools_list_imports_whole(tmp_path):
    require_module("mcp", extra="catalog-import")
    out = tmp_path / "github.json"
    result = sr(
        "catalog", "import", str(GITHUB_MCP), "--from", "mcp", "--out", str(out), "--domain", "github"
    )
    assert result.exit_code == 0, result.output
    print(result.output)
    tools = json.loads(GITHUB_MCP.read_text(encoding="utf-8"))["result"]["tools"]
    assert f"{len(tools)} operations: {len(tools)} imported, 0 skipped" in result.output.splitlines()
    catalog, _ = load_catalog_file(out)
    assert catalog.by_name()["get_latest_release"].route_id == "github.get_latest_release"


def test_the_openai_tools_list_imports_whole(tmp_path):
    out = tmp_path / "travel.json"
    result = sr("catalog", "import", str(OPENAI), "--from", "openai", "--out", str(out))
    assert result.exit_code == 0, result.output
    print(result.output)
    assert "12 operations: 12 imported, 0 skipped" in result.output.splitlines()
