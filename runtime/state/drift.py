"""``contract_drift(raw)``: how a state contract asks for more than the state boundary implements.

Checked when the state-aware retriever is built (``retrieval.StateAwareRetriever``), as a defence
behind ``sr validate``: the contract version, the query item, the identifier pattern, the error
classes, the serialization and ``free_text_in_retrieval`` must be the pinned ones, and every allowed
field must resolve to a kind that holds its source (``layout.field_problems``). The fields themselves,
their names and their order, are the contract's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runtime.state.contract import (
    CONTRACT_VERSION,
    ERROR_CLASSES,
    IDENTIFIER_PATTERN,
    QUERY_ITEM,
)
from runtime.state.layout import field_problems


def contract_drift(raw: Mapping[str, Any]) -> list[str]:
    """Differences between a parsed (or dumped compiled) state contract and the runtime (empty if none)."""
    drift: list[str] = []

    def differ(what: str, spec_value: Any, pinned: Any) -> None:
        if spec_value != pinned:
            drift.append(f"state_contract.{what}: spec has {spec_value!r}, runtime pins {pinned!r}")

    differ("version", raw.get("version"), CONTRACT_VERSION)
    differ("query.name", (raw.get("query") or {}).get("name"), QUERY_ITEM)
    lists = {k: v for k, v in raw.items() if isinstance(v, list | tuple)}
    names = [entry.get("name") for entry in raw.get("allowed", ())]
    if len(set(names)) != len(names):
        drift.append(f"state_contract.allowed: a field is named twice in {names}")
    for entry in raw.get("allowed", ()):
        for problem in field_problems(entry, lists):
            drift.append(f"state_contract.allowed.{entry.get('name')}.{problem.key}: {problem.message}")
    differ("identifier_pattern", raw.get("identifier_pattern"), IDENTIFIER_PATTERN)
    differ("error_classes", tuple(raw.get("error_classes", ())), ERROR_CLASSES)
    serialization = raw.get("serialization") or {}
    differ("serialization.standard", serialization.get("standard"), "RFC 8785")
    differ("serialization.joiner", serialization.get("joiner"), "\n")
    differ("free_text_in_retrieval", raw.get("free_text_in_retrieval"), "never")
    return drift
