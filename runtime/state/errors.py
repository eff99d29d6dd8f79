"""The one error the state boundary raises."""

from __future__ import annotations

from runtime.core.errors import SchemaRouterError


class ContractViolation(SchemaRouterError):
    """Something tried to put into ObservableState what the frozen state contract does not allow.

    ``item`` names the forbidden contract item when one was recognised (e.g. ``gold_next_route_id``);
    ``path`` is where in the offered data it was found (e.g. ``observed_units[0].rank``).
    """

    def __init__(self, message: str, *, item: str | None = None, path: str = "") -> None:
        where = f" at {path}" if path else ""
        super().__init__(f"state contract violation{where}: {message}")
        self.item = item
        self.path = path
