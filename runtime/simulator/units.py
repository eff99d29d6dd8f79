"""Unit conversion with real arithmetic.

Rounding rule: the exact result (``decimal.Decimal``, 28 significant digits) is rounded half-up to the
target unit's decimals: temperatures to 0.1, lengths and masses to 0.01, money to the currency's
minor unit (2 decimals; JPY and KRW 0). Currency converts through USD at the world's fixed rates
(units per 1 USD): ``amount / rate[from] * rate[to]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal

DECIMALS: dict[str, int] = {
    "degC": 1,
    "degF": 1,
    "K": 1,
    "km": 2,
    "mi": 2,
    "m": 2,
    "ft": 2,
    "cm": 1,
    "kg": 2,
    "lb": 2,
    "g": 1,
    "oz": 2,
}
ZERO_DECIMAL_CURRENCIES = frozenset({"JPY", "KRW"})

# Linear factors to a base unit per dimension (length: m, mass: kg). Exact by definition.
_TO_BASE: dict[str, tuple[str, Decimal]] = {
    "km": ("length", Decimal("1000")),
    "m": ("length", Decimal("1")),
    "cm": ("length", Decimal("0.01")),
    "mi": ("length", Decimal("1609.344")),
    "ft": ("length", Decimal("0.3048")),
    "kg": ("mass", Decimal("1")),
    "g": ("mass", Decimal("0.001")),
    "lb": ("mass", Decimal("0.45359237")),
    "oz": ("mass", Decimal("0.028349523125")),
}
_TEMPERATURE = frozenset({"degC", "degF", "K"})


class UnitError(ValueError):
    """The two units do not share a dimension (or a currency rate is missing)."""


def round_to(value: Decimal, unit: str) -> Decimal:
    if unit in DECIMALS:
        places = DECIMALS[unit]
    elif unit in ZERO_DECIMAL_CURRENCIES:
        places = 0
    else:
        places = 2  # currencies and anything else
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _to_celsius(value: Decimal, unit: str) -> Decimal:
    if unit == "degC":
        return value
    if unit == "degF":
        return (value - 32) * 5 / 9
    return value - Decimal("273.15")


def _from_celsius(value: Decimal, unit: str) -> Decimal:
    if unit == "degC":
        return value
    if unit == "degF":
        return value * 9 / 5 + 32
    return value + Decimal("273.15")


def convert(value: Decimal, from_unit: str, to_unit: str, fx_rates: Mapping[str, str]) -> Decimal:
    """``value`` in ``from_unit`` expressed in ``to_unit``, rounded by the rule above."""
    if from_unit in _TEMPERATURE and to_unit in _TEMPERATURE:
        exact = _from_celsius(_to_celsius(value, from_unit), to_unit)
    elif from_unit in _TO_BASE and to_unit in _TO_BASE:
        dim_from, f_from = _TO_BASE[from_unit]
        dim_to, f_to = _TO_BASE[to_unit]
        if dim_from != dim_to:
            raise UnitError(f"cannot convert {from_unit} ({dim_from}) to {to_unit} ({dim_to})")
        exact = value * f_from / f_to
    elif from_unit in fx_rates and to_unit in fx_rates:
        exact = value / Decimal(fx_rates[from_unit]) * Decimal(fx_rates[to_unit])
    else:
        raise UnitError(f"cannot convert {from_unit} to {to_unit}")
    return round_to(exact, to_unit)
