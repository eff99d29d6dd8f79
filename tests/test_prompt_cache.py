"""Rendering once: cached schemas, exposed sets and token totals equal what a fresh render gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.catalog.io import catalog_digest, load_catalog, load_catalog_with_digest
from runtime.catalog.model import Catalog, Endpoint
from runtime.prompt import ExposedTools, HistoryEntry, Prompt, ToolSchemas, build_prompt
from runtime.tokens import TokenCounter, TokenizerConfig, load_tokenizer
from schemarouter.project import ProjectPaths

ROOT = ProjectPaths.at(Path(__file__).resolve().parents[1])


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(ROOT.catalogs_dir, 100)


def _history() -> tuple[HistoryEntry, ...]:
    return tuple(
        HistoryEntry(
            turn=i,
            tool_name=f"tool_{i}",
            route_id=None,
            arguments={"city": "Zürich", "n": i},
            status="error",
            error_class="UNEXPOSED",
            model_view={"status": "error", "error": "UNEXPOSED"},
            result=None,
        )
        for i in (1, 2)
    )


def test_cached_set_equals_a_fresh_render(catalog: Catalog) -> None:
    schemas = ToolSchemas(catalog.by_route(), "sha256:x")
    ids = tuple(e.route_id for e in catalog.endpoints[::7])
    got = schemas.exposed(ids)
    assert got.route_ids == ids
    assert got.tools == tuple(catalog.by_route()[r].tool_schema() for r in ids)
    assert got.tool_texts == tuple(catalog.by_route()[r].tool_schema_json() for r in ids)
    assert got.names == frozenset(catalog.by_route()[r].name for r in ids)


def test_each_schema_is_rendered_once(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = Endpoint.tool_schema

    def counting(self: Endpoint) -> dict:  # type: ignore[type-arg]
        calls.append(self.route_id)
        return original(self)

    monkeypatch.setattr(Endpoint, "tool_schema", counting)
    schemas = ToolSchemas(catalog.by_route(), "sha256:x")
    ids = [e.route_id for e in catalog.endpoints[:10]]
    first = schemas.exposed(ids)
    assert schemas.exposed(tuple(ids)) is first
    schemas.exposed(list(reversed(ids)))  # a new set in another order renders nothing again
    assert sorted(calls) == sorted(ids)


def test_set_cache_is_bounded_and_still_renders_once(catalog: Catalog) -> None:
    schemas = ToolSchemas(catalog.by_route(), "sha256:x", max_sets=1)
    a, b = (catalog.endpoints[0].route_id,), (catalog.endpoints[1].route_id,)
    kept = schemas.exposed(a)
    assert schemas.exposed(a) is kept
    assert schemas.exposed(b) is not schemas.exposed(b)
    assert schemas.exposed(b).tools[0] is schemas.exposed(b).tools[0]


def test_prompt_from_a_cached_set_counts_like_a_plain_one(catalog: Catalog) -> None:
    counter = TokenCounter(load_tokenizer(TokenizerConfig()))
    endpoints = catalog.endpoints[:25]
    history = _history()
    cached = ToolSchemas(catalog.by_route(), "sha256:x").exposed([e.route_id for e in endpoints])
    fast = build_prompt(system_prompt="sys", query="q", history=history, exposed=cached)
    plain = build_prompt(system_prompt="sys", query="q", history=history, exposed=endpoints)
    assert fast == plain
    # The generic path (a Prompt built by hand) gives the same parts as the pre-rendered one.
    by_hand = Prompt(messages=plain.messages, tools=plain.tools, tool_texts=plain.tool_texts)
    assert fast.token_parts() == by_hand.token_parts()
    want = counter.prompt(by_hand.token_parts(), by_hand.tool_texts)
    assert counter.prompt(fast.token_parts(), fast.tool_texts, tools_key=cached) == want
    assert counter.prompt(fast.token_parts(), fast.tool_texts, tools_key=cached) == want
    assert want.schema_tokens == sum(counter.text(e.tool_schema_json()) for e in endpoints)


def test_exposed_tools_render_matches_endpoints(catalog: Catalog) -> None:
    endpoints = catalog.endpoints[3:6]
    rendered = ExposedTools.render(endpoints)
    assert rendered.endpoints == endpoints
    assert rendered.tool_texts == tuple(e.tool_schema_json() for e in endpoints)


def test_catalog_digest_is_the_file_digest() -> None:
    catalog, digest = load_catalog_with_digest(ROOT.catalogs_dir, 100)
    assert digest.startswith("sha256:") and len(digest) == 7 + 64
    assert catalog_digest(catalog) == digest
