"""The simulator: pure, deterministic, real arithmetic, typed errors; and the binding rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from runtime.catalog.io import load_catalog
from runtime.catalog.model import Endpoint
from runtime.simulator import Session, ToolResult, World, bind_arguments, execute
from runtime.simulator.result import ObservedField
from runtime.simulator.units import convert

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = yaml.safe_load((ROOT / "spec" / "0.14" / "state_contract.yaml").read_text(encoding="utf-8"))
ROUTES = load_catalog(ROOT / "catalogs" / "0.14", 500).by_route()


def world(**update) -> World:
    base = World(
        world_id="t",
        today="2026-10-05",
        salt="00ff",
        fx_rates={"USD": "1", "EUR": "0.92", "JPY": "149.5", "GBP": "0.79", "KRW": "1385", "CNY": "7.28"},
        sessions={"workspace": Session(status="valid"), "merchant": Session(status="valid")},
    )
    return base.model_copy(update=update)


def value(result: ToolResult, name: str):
    return next(f.value for f in result.fields if f.name == name)


@pytest.mark.parametrize(
    ("route", "arg", "given", "out", "expected"),
    [
        ("units.temperature.f_to_c.v2", "fahrenheit", 98.6, "celsius", 37.0),
        ("units.temperature.f_to_c.v2", "fahrenheit", 32, "celsius", 0.0),
        ("units.temperature.c_to_f.v2", "celsius", -40, "fahrenheit", -40.0),
        ("units.length.mi_to_km.v2", "miles", 26.2, "kilometers", 42.16),
        ("units.length.km_to_mi.v2", "kilometers", 10, "miles", 6.21),
        ("units.mass.lb_to_kg.v2", "pounds", 150, "kilograms", 68.04),
        ("units.mass.kg_to_lb.v2", "kilograms", 1, "pounds", 2.2),
        ("fx.convert.usd_eur.v2", "amount_usd", 100, "amount_eur", 92.0),
        ("fx.convert.usd_jpy.v2", "amount_usd", 12.34, "amount_jpy", 1845.0),
    ],
)
def test_conversions_are_real_arithmetic(route, arg, given, out, expected):
    result, after = execute(ROUTES[route], {arg: given}, world())
    assert result.status == "ok"
    assert value(result, out) == expected
    assert after == world()


def test_currency_uses_the_worlds_rates_and_half_up_rounding():
    from decimal import Decimal

    assert convert(Decimal("10.005"), "USD", "EUR", {"USD": "1", "EUR": "1"}) == Decimal("10.01")
    result, _ = execute(
        ROUTES["fx.convert.usd_eur.v2"], {"amount_usd": 100}, world(fx_rates={"USD": "1", "EUR": "0.9"})
    )
    assert value(result, "amount_eur") == 90.0


def test_execution_is_pure_and_deterministic():
    w = world()
    snapshot = w.model_dump()
    endpoint = ROUTES["payments.intents.create.v2"]
    first, w1 = execute(endpoint, {"amount": 250, "currency": "EUR"}, w)
    second, w2 = execute(endpoint, {"amount": 250.0, "currency": "EUR"}, w)  # same number, same identifier
    assert w.model_dump() == snapshot
    assert first == second and w1 == w2
    intent_id = value(first, "intent_id")
    assert re.fullmatch(CONTRACT["identifier_pattern"], intent_id)
    again, _ = execute(endpoint, {"amount": 250, "currency": "EUR"}, w1)
    assert again.error_class == "CONFLICT"
    wrong_type, _ = execute(ROUTES["commerce.carts.create.v2"], {"sku": "SKU-1", "quantity": 2.5}, w)
    assert wrong_type.error_class == "INVALID_TYPE"


def test_identifiers_must_be_carried_verbatim():
    _, w = execute(ROUTES["commerce.carts.create.v2"], {"sku": "SKU-1", "quantity": 1}, world())
    cart_id = next(iter(w.records("carts")))
    ok, _ = execute(ROUTES["commerce.checkouts.create.v2"], {"cart_id": cart_id}, w)
    bad, after = execute(ROUTES["commerce.checkouts.create.v2"], {"cart_id": cart_id.upper()}, w)
    assert ok.status == "ok" and bad.error_class == "NOT_FOUND" and after == w


def test_destructive_operations_change_the_world():
    w = world(collections={"files": {"fil_1": {"file_id": "fil_1", "file_name": "a.txt"}}})
    result, after = execute(ROUTES["files.delete.permanent.v2"], {"file_id": "fil_1"}, w)
    assert result.status == "ok" and result.side_effect == "destructive"
    assert "fil_1" not in after.records("files") and "fil_1" in w.records("files")


def test_typed_errors():
    routes = ROUTES
    cases = [
        (routes["geo.geocode.forward.v2"], {}, world(), "MISSING_INPUT"),
        (routes["geo.geocode.forward.v2"], {"place_query": 3}, world(), "INVALID_TYPE"),
        (routes["geo.geocode.forward.v2"], {"place_query": "x", "extra": 1}, world(), "INVALID_TYPE"),
        (routes["geo.geocode.forward.v2"], {"place_query": "Nowhere"}, world(), "NOT_FOUND"),
        (
            routes["calendar.events.list_day.v2"],
            {"date": "2026-10-09"},
            world(sessions={"workspace": Session(status="expired")}),
            "AUTH_EXPIRED",
        ),
        (
            routes["geo.geocode.forward.v2"],
            {"place_query": "x"},
            world(rate_limited=("geo.geocode.forward.v2",)),
            "RATE_LIMITED",
        ),
        (
            routes["shipping.rates.quote.v2"],
            {"weight_kg": 2, "weight_unit": "lb", "destination_country": "FR"},
            world(),
            "UNIT_MISMATCH",
        ),
        (routes["hr.employees.terminate.v2"], {"employee_id": "E1"}, world(), "PERMISSION_DENIED"),
    ]
    for endpoint, args, w, expected in cases:
        result, after = execute(endpoint, args, w)
        assert result.status == "error" and result.error_class == expected, (endpoint.route_id, result)
        assert result.error_class in CONTRACT["error_classes"] and not result.fields and after == w


def test_refresh_and_resolve_recover():
    expired = world(sessions={"workspace": Session(status="expired")})
    refreshed, w = execute(ROUTES["identity.session.refresh.v2"], {}, expired)
    assert refreshed.status == "ok" and w.sessions["workspace"].status == "valid"
    stale = world(
        aliases={"orders": {"ORD-1": "ORD-2"}}, collections={"orders": {"ORD-2": {"order_id": "ORD-2"}}}
    )
    missing, _ = execute(ROUTES["commerce.orders.retrieve.v2"], {"order_id": "ORD-1"}, stale)
    resolved, _ = execute(ROUTES["commerce.orders.resolve_legacy.v2"], {"order_id": "ORD-1"}, stale)
    assert missing.error_class == "NOT_FOUND" and value(resolved, "order_id") == "ORD-2"


def _field(name, semantic, v, unit=None) -> ObservedField:
    return ObservedField(name=name, semantic_id=semantic, json_type="number", unit=unit, value=v)


def test_binding_literals_first_then_most_recent_same_semantic_and_unit():
    endpoint: Endpoint = ROUTES["expenses.mileage.claim.v2"]
    older = ToolResult(
        route_id="a", status="ok", fields=(_field("kilometers", "quantity.length", 1.0, "km"),)
    )
    miles = ToolResult(route_id="b", status="ok", fields=(_field("miles", "quantity.length", 9.0, "mi"),))
    newer = ToolResult(
        route_id="c", status="ok", fields=(_field("kilometers", "quantity.length", 2.0, "km"),)
    )
    failed = ToolResult(route_id="d", status="error", error_class="NOT_FOUND")
    args = bind_arguments(endpoint, {"trip_date": "2026-10-10", "ignored": 1}, [older, newer, miles, failed])
    assert args == {"distance_km": 2.0, "trip_date": "2026-10-10"}
    literal = bind_arguments(endpoint, {"distance_km": 5.0}, [newer])
    assert literal["distance_km"] == 5.0


def test_planted_text_is_free_text_only():
    from runtime.surface import execute_gold_plan, load_surface

    catalog = load_catalog(ROOT / "catalogs" / "0.14", 100)
    planted = [t for t in load_surface(ROOT / "catalogs" / "0.14") if t.hidden.hazards.injected_texts]
    assert planted
    for task in planted:
        calls, _ = execute_gold_plan(task, catalog)
        text = task.hidden.hazards.injected_texts[0]
        assert any(c.result.message and text in c.result.message for c in calls)
        assert not any(text in str(f.value) for c in calls for f in c.result.fields)
        assert text not in task.model_dump_json(exclude={"hidden"})
