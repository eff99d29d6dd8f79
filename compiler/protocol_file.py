"""The experiment's protocol file (``spec/<id>/protocol.yaml``), read for the semantic checks.

The protocol is the preregistration's independent record: the other spec files are checked against
it, so the spec still says what the protocol says. 0.14's protocol quotes the seed's own words beside
each value. Nothing here holds a value of any experiment: it only gives the file's data names.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final, TypedDict

from compiler.issues import SpecIssue
from compiler.semantic_view import SpecView

# The problems this module reports, by stable code (tests/cases/validation/<code>.yaml shows each).
PROBLEMS: Final[dict[str, str]] = {
    "PR101": "… is not in conditions.ids",
    "PR102": "… is not in metrics.ids",
    "PR103": "… differs from the … strata listed",
    "PR104": "… is not tasks_per_cell x strata_count x language_count = …",
    "PR105": "… is not in conditions.ids",
}

NAME = "protocol"


class ProtocolStratum(TypedDict):
    id: str
    quote: str


class ProtocolSurface(TypedDict):
    """``surface`` of protocol.yaml (its schema requires every key)."""

    total_tasks: int
    strata_count: int
    language_count: int
    tasks_per_cell: int
    strata: list[ProtocolStratum]
    quote: str


class ProtocolBootstrap(TypedDict):
    """``bootstrap`` of protocol.yaml (``reading`` is optional)."""

    method: str
    strata: list[str]
    iterations: int
    seed: int
    confidence: float
    quote: str


class RefreshVariants(TypedDict, total=False):
    """``conditions.variants[<condition>]`` of protocol.yaml: the refresh variants allowed beside the policy
    kind's default mode (the schema leaves the object open; these are the keys the checks read)."""

    modes: list[str]
    max_cap: int
    cursor: bool
    keep: bool


@dataclass(frozen=True)
class Protocol:
    """Named views of a schema-valid protocol.yaml."""

    data: dict[str, Any]

    @property
    def experiment_id(self) -> str:
        return str(self.data["experiment_id"])

    @property
    def tracking_issue(self) -> str:
        return str(self.data["tracking_issue"])

    @property
    def catalog_sizes(self) -> list[int]:
        return list(self.data["catalogs"]["sizes"])

    @property
    def surface(self) -> ProtocolSurface:
        """A copy of ``surface`` (the schema holds it to this shape)."""
        surface: ProtocolSurface = copy.copy(self.data["surface"])
        return surface

    @property
    def stratum_ids(self) -> list[str]:
        return [s["id"] for s in self.data["surface"]["strata"]]

    @property
    def bootstrap(self) -> ProtocolBootstrap:
        """A copy of ``bootstrap`` (the schema holds it to this shape)."""
        bootstrap: ProtocolBootstrap = copy.copy(self.data["bootstrap"])
        return bootstrap

    @property
    def query_item(self) -> str:
        return str(self.data["state"]["query_item"])

    @property
    def allowed_state(self) -> list[str]:
        return [a["name"] for a in self.data["state"]["allowed"]]

    @property
    def forbidden(self) -> dict[str, str]:
        """Forbidden item id -> the protocol's words for it."""
        return {f["id"]: f["quote"] for f in self.data["state"]["forbidden"]}

    @property
    def condition_ids(self) -> list[str]:
        return list(self.data["conditions"]["ids"])

    @property
    def treatment(self) -> str:
        return str(self.data["conditions"]["treatment"])

    @property
    def comparator(self) -> str:
        return str(self.data["conditions"]["comparator"])

    @property
    def limits(self) -> dict[str, int]:
        return dict(self.data["conditions"]["limits"])

    def bound_by(self, limit: str) -> list[str] | None:
        """The conditions ``limit`` binds (``conditions.binds``); None: every ranked condition (0.14)."""
        binds = self.data["conditions"].get("binds") or {}
        return None if limit not in binds else list(binds[limit])

    def variants_of(self, condition_id: str) -> RefreshVariants:
        """The refresh variants the protocol allows ``condition_id`` (``conditions.variants``); empty:
        only its policy kind's default mode, no cursor, no keep, no cap (0.14)."""
        found = (self.data["conditions"].get("variants") or {}).get(condition_id)
        variants: RefreshVariants = copy.copy(found) if found else {}
        return variants

    @property
    def metric_ids(self) -> list[str]:
        return list(self.data["metrics"]["ids"])

    @property
    def gate_criteria(self) -> dict[str, tuple[str, str, float]]:
        """Criterion code -> (metric, operator, threshold)."""
        return {
            c["code"]: (c["metric"], c["operator"], c["threshold"]) for c in self.data["gate"]["criteria"]
        }


def protocol_of(view: SpecView) -> Protocol:
    return Protocol(view.data(NAME))


def check_protocol_coherent(view: SpecView) -> Iterator[SpecIssue]:
    """The protocol agrees with itself: treatment and comparator are its conditions, its gate's metrics
    are its metrics, its strata count is its strata, its cells multiply to its total."""
    protocol = protocol_of(view)
    yield from _condition_references(view, protocol)
    yield from _gate_metrics(view, protocol)
    yield from _surface_counts(view, protocol)


def _condition_references(view: SpecView, protocol: Protocol) -> Iterator[SpecIssue]:
    """Treatment, comparator, the conditions each limit binds and those with variants are its conditions."""
    for key in ("treatment", "comparator"):
        if getattr(protocol, key) not in protocol.condition_ids:
            yield view.issue(
                NAME,
                ("conditions", key),
                f"{getattr(protocol, key)!r} is not in conditions.ids",
                code="PR101",
            )
    conditions = protocol.data["conditions"]
    for limit, ids in (conditions.get("binds") or {}).items():
        for index, condition_id in enumerate(ids):
            if condition_id not in protocol.condition_ids:
                yield view.issue(
                    NAME,
                    ("conditions", "binds", limit, index),
                    f"{condition_id!r} is not in conditions.ids",
                    code="PR105",
                )
    for condition_id in conditions.get("variants") or {}:
        if condition_id not in protocol.condition_ids:
            yield view.issue(
                NAME,
                ("conditions", "variants", condition_id),
                f"{condition_id!r} is not in conditions.ids",
                at_key=True,
                code="PR105",
            )


def _gate_metrics(view: SpecView, protocol: Protocol) -> Iterator[SpecIssue]:
    for index, criterion in enumerate(protocol.data["gate"]["criteria"]):
        if criterion["metric"] not in protocol.metric_ids:
            yield view.issue(
                NAME,
                ("gate", "criteria", index, "metric"),
                f"{criterion['metric']!r} is not in metrics.ids",
                code="PR102",
            )


def _surface_counts(view: SpecView, protocol: Protocol) -> Iterator[SpecIssue]:
    """The strata count is the strata listed; the cells multiply to the total."""
    surface = protocol.surface
    if len(protocol.stratum_ids) != surface["strata_count"]:
        yield view.issue(
            NAME,
            ("surface", "strata_count"),
            f"{surface['strata_count']} differs from the {len(protocol.stratum_ids)} strata listed",
            code="PR103",
        )
    cells = surface["tasks_per_cell"] * surface["strata_count"] * surface["language_count"]
    if cells != surface["total_tasks"]:
        yield view.issue(
            NAME,
            ("surface", "total_tasks"),
            f"{surface['total_tasks']} is not tasks_per_cell x strata_count x language_count = {cells}",
            code="PR104",
        )
