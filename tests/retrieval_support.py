"""Shared helpers for the retrieval tests: the frozen spec and indexes over small catalogs."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from retrieval_toy_catalog import TOY_CATALOG

from runtime.catalog.model import Endpoint
from runtime.retrieval import RetrievalIndex, RetrieverSpec
from runtime.simulator.result import ObservedField, ToolResult
from runtime.state.model import ObservableState
from schemarouter.application.retrieval_io import read_retriever_file
from schemarouter.project import ProjectPaths

ROOT = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def frozen_spec() -> RetrieverSpec:
    paths = ProjectPaths.at(ROOT)
    return read_retriever_file(paths, paths.spec_dir / "retriever.yaml")


@lru_cache(maxsize=1)
def toy_index() -> RetrievalIndex:
    return RetrievalIndex.build(TOY_CATALOG, frozen_spec())


def twins(n: int, summary: str = "Send a message to a channel.") -> list[Endpoint]:
    """n endpoints that differ only in route ID (so every query ties them all)."""
    base = TOY_CATALOG.endpoints[0]
    return [
        base.model_copy(
            update={
                "route_id": f"twin.r{i:03d}.v1",
                "name": "twin_send",
                "summary": summary,
                "description": "",
                "summaries": {},
            }
        )
        for i in range(n)
    ]


def geocoded(
    latitude: float,
    *,
    longitude: float | None = None,
    place_id: str | None = None,
    message: str = "free text",
) -> ObservableState:
    """The state after geo.geocode.v1 answered ok with a latitude (and, if given, a longitude and a stable
    place ID). ``message`` is the result's free text, which must never reach retrieval."""
    fields = [ObservedField(name="latitude", semantic_id="geo.latitude", json_type="number", value=latitude)]
    if longitude is not None:
        fields.append(
            ObservedField(name="longitude", semantic_id="geo.longitude", json_type="number", value=longitude)
        )
    if place_id is not None:
        fields.append(
            ObservedField(
                name="place_id",
                semantic_id="geo.place_id",
                json_type="string",
                value=place_id,
                stable_identifier=True,
            )
        )
    result = ToolResult(route_id="geo.geocode.v1", status="ok", fields=tuple(fields), message=message)
    return ObservableState.initial().after_result(result)
