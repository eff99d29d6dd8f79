"""Shared helpers for the retrieval tests: the frozen spec and indexes over small catalogs."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from retrieval_toy_catalog import TOY_CATALOG

from schemarouter.application.retrieval_io import read_retriever_file
from schemarouter.project import ProjectPaths
from schemarouter.runtime.catalog.model import Endpoint
from schemarouter.runtime.retrieval import RetrievalIndex, RetrieverSpec

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
