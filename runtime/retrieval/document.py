"""What of an endpoint is indexed: the text of each spec'd source.

Only the parts listed in ``spec.Source`` can be read here; ``Endpoint.behavior`` (simulator
semantics) has no source name and is never indexed.
"""

from __future__ import annotations

from collections.abc import Callable

from runtime.catalog.model import Endpoint, FieldSpec
from runtime.spec_model.retriever import LANGUAGES, Source


def _units(fields: tuple[FieldSpec, ...]) -> list[str]:
    return [part for f in fields for part in (f.unit, f.dimension, f.qualifier) if part]


_READERS: dict[str, Callable[[Endpoint], list[str]]] = {
    "route_id": lambda e: [e.route_id],
    "name": lambda e: [e.name],
    "summary": lambda e: [e.summary],
    "description": lambda e: [e.description],
    "inputs.name": lambda e: [f.name for f in e.inputs],
    "outputs.name": lambda e: [f.name for f in e.outputs],
    "inputs.semantic_id": lambda e: [f.semantic_id for f in e.inputs],
    "outputs.semantic_id": lambda e: [f.semantic_id for f in e.outputs],
    "inputs.unit": lambda e: _units(e.inputs),
    "outputs.unit": lambda e: _units(e.outputs),
    "errors": lambda e: list(e.errors),
}


def _summary_reader(language: str) -> Callable[[Endpoint], list[str]]:
    return lambda e: [e.summaries[language]] if language in e.summaries else []


for _lang in LANGUAGES:
    _READERS[f"summaries.{_lang}"] = _summary_reader(_lang)


def source_text(endpoint: Endpoint, sources: tuple[Source, ...]) -> str:
    """The endpoint's text for one indexed field: its sources' values, one per line."""
    return "\n".join(value for source in sources for value in _READERS[source](endpoint) if value)
