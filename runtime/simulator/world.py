"""The world a task runs in: an immutable snapshot of every fact the simulator may read or change.

A world is hidden from the agent and the retriever (it holds the reference facts). The simulator never
mutates a world: an operation that changes state returns a new ``World``. Only ``collections`` is the
business state that the task check compares; sessions, aliases, rates and planted messages are the
environment the task runs in.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any, Literal

from pydantic import Field

from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONObject


class Session(FrozenModel):
    """The user's session with one authentication realm."""

    status: Literal["valid", "expired"] = Field(description="valid, or expired (calls in the realm fail).")
    token: str | None = Field(default=None, description="The current access token, once refreshed.")


class World(FrozenModel):
    """One task's world. Treat as immutable: the simulator returns a new world on every change."""

    world_id: str = Field(description="Stable ID of the world (the task ID it was built for).")
    today: str = Field(description="The world's current date (ISO 8601); relative dates resolve from it.")
    salt: str = Field(description="Hex salt that seeds derived values (forecasts, quotes) of this world.")
    roles: tuple[str, ...] = Field(default=("member",), description="Roles the user holds.")
    collections: dict[str, dict[str, dict[str, Any]]] = Field(
        default_factory=dict,
        description="Business state: collection name -> record ID -> record (field name -> value).",
    )
    aliases: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="Stale identifiers: collection -> stale ID -> current ID (read by resolve routes).",
    )
    sessions: dict[str, Session] = Field(
        default_factory=dict, description="Authentication realm -> the user's session in it."
    )
    fx_rates: dict[str, str] = Field(
        default_factory=dict, description="Currency code -> units of it per 1 USD (decimal string)."
    )
    rate_limited: tuple[str, ...] = Field(default=(), description="Route IDs that answer RATE_LIMITED.")
    messages: dict[str, str] = Field(
        default_factory=dict,
        description="Route ID -> free text appended to its ok results' message (may be planted).",
    )

    def records(self, collection: str) -> dict[str, JSONObject]:
        """The records of one collection (empty if none). Do not mutate the returned mapping."""
        return self.collections.get(collection, {})

    def with_record(self, collection: str, record_id: str, record: JSONObject | None) -> World:
        """A new world where ``record_id`` holds ``record`` (or is removed when ``record`` is None)."""
        collections = dict(self.collections)
        records = dict(collections.get(collection, {}))
        if record is None:
            records.pop(record_id, None)
        else:
            records[record_id] = copy.deepcopy(record)
        collections[collection] = records
        return self.model_copy(update={"collections": collections})

    def with_session(self, realm: str, session: Session) -> World:
        sessions = dict(self.sessions)
        sessions[realm] = session
        return self.model_copy(update={"sessions": sessions})

    def business_state(self) -> dict[str, dict[str, JSONObject]]:
        """What the task check compares: the collections, without empty ones."""
        return {name: records for name, records in self.collections.items() if records}

    def business_digest(self) -> str:
        """sha256 of the business state as canonical JSON."""
        text = json.dumps(self.business_state(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()
