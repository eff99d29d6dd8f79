"""RetrievalCall: the audit record every retrieval call returns (the engine stores it in traces)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONObject

QueryKind = Literal["original", "original_plus_state"]


class RetrievalCall(FrozenModel):
    """What one retrieval call retrieved with, and what it returned.

    Scores and positions are for audit only: nothing in this record may flow into ObservableState
    or into any later query.
    """

    query_kind: QueryKind = Field(
        description="original: the user's query alone; original_plus_state: query + newline + state JCS."
    )
    text: str = Field(description="The exact text retrieved with.")
    depth: int = Field(ge=0, description="How many routes were asked for (k, or the progressive depth).")
    route_ids: tuple[str, ...] = Field(
        description="Returned route IDs in rank order (may be fewer than depth)."
    )
    scores: tuple[float, ...] = Field(description="BM25 score of each returned route; audit only.")
    catalog_size: int = Field(ge=0, description="Number of endpoints in the searched index.")
    latency_us: int = Field(ge=0, description="Wall time of the call in microseconds; not deterministic.")

    def audit_dict(self) -> JSONObject:
        """The record as JSON-compatible data, for the episode trace."""
        return self.model_dump(mode="json")
