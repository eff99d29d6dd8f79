"""Retrieval strategies: a Protocol, a registry of stable codes, and one way to build them.

A strategy is one way of ranking a catalog's routes. It is registered where it is defined, under a
code that never changes meaning once an experiment has frozen it::

    @register_strategy("text_concat", params=TextConcatParams)
    class TextConcat:
        def __init__(self, context: StrategyContext) -> None: ...
        def rank_query(self, query: str, depth: int) -> Ranking: ...
        def rank_with_state(self, query: str, state_text: str, depth: int) -> Ranking: ...

The experiment's retriever spec names it (``strategy: {code: typed_state, params: {...}}``); a spec
without ``strategy`` means ``text_concat``, 0.14's retriever. The structural boundary is kept by the
two entry points in ``retrievers.py``, not by the strategy: ``StaticRetriever`` calls only
``rank_query`` (no state parameter anywhere on its path) and ``StateAwareRetriever`` passes only the
original query and ``ObservableState.canonical_json()``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from runtime.catalog.model import Catalog, Endpoint
from runtime.core.errors import SchemaRouterError
from runtime.core.frozen_model import FrozenModel
from runtime.core.json_value import JSONObject, JSONValue
from runtime.core.registry import Registry
from runtime.retrieval.index import Ranking, RetrievalIndex
from runtime.spec_model.retriever import RetrieverSpec

DEFAULT_STRATEGY = "text_concat"


class RetrievalStrategy(Protocol):
    """One built strategy over one catalog. Rankings are deterministic; ties go by route ID."""

    code: str

    @property
    def size(self) -> int:
        """Number of endpoints it ranks."""
        ...

    def rank_query(self, query: str, depth: int) -> Ranking:
        """The top ``depth`` routes for the original query alone."""
        ...

    def rank_with_state(self, query: str, state_text: str, depth: int) -> Ranking:
        """The top ``depth`` routes for the original query and the canonical state JSON."""
        ...


class NoParams(FrozenModel):
    """A strategy without parameters: ``params`` must be empty."""


@dataclass(frozen=True)
class StrategyContext:
    """What a strategy may be built from: the catalog's documents, never a task or a state."""

    index: RetrievalIndex  # the lexical index of the retriever spec (route ID order)
    endpoints: tuple[Endpoint, ...]  # sorted by route ID, the index's document order
    params: BaseModel  # the validated ``params`` of the spec entry
    cache_dir: Path | None = None  # where derived document data may be cached (build/...)


StrategyFactory = Callable[[StrategyContext], RetrievalStrategy]
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class RegisteredStrategy:
    """A registry entry: the code, its factory, its parameter model and a one-line summary."""

    code: str
    factory: StrategyFactory
    params: type[BaseModel]
    summary: str


# The built-in strategies are the modules of ``runtime/retrieval/strategies/`` (one each, discovered);
# installed packages add theirs through the ``schemarouter.strategies`` entry points.
STRATEGIES: Registry[RegisteredStrategy] = Registry(
    "retrieval strategy", group="strategies", package="runtime.retrieval.strategies"
)


def register_strategy(code: str, *, params: type[BaseModel] = NoParams) -> Callable[[F], F]:
    """Register the decorated class (or factory) under ``code``; the code must be new."""

    def wrap(factory: F) -> F:
        doc = (factory.__doc__ or "").strip().splitlines()
        entry = RegisteredStrategy(code, factory, params, doc[0] if doc else "")
        STRATEGIES.add(code, entry, module=factory.__module__)
        return factory

    return wrap


def strategy_codes() -> list[str]:
    """Every registered code, sorted."""
    return STRATEGIES.names()


def get_strategy(code: str) -> RegisteredStrategy:
    """The registry entry for ``code``; an unknown code is one clear error line."""
    return STRATEGIES.get(code)


def parse_params(
    code: str, params: Mapping[str, JSONValue] | None, *, origin: str = "strategy.params"
) -> BaseModel:
    """Validate ``params`` with the strategy's model; each problem becomes one error line."""
    entry = get_strategy(code)
    try:
        return entry.params.model_validate(dict(params or {}))
    except ValidationError as err:
        lines = [
            f"{origin}.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
            if e["loc"]
            else f"{origin}: {e['msg']}"
            for e in err.errors(include_url=False)
        ]
        raise SchemaRouterError("\n".join(lines)) from None


def build_strategy(
    code: str,
    catalog: Catalog | Sequence[Endpoint],
    *,
    index: RetrievalIndex,
    params: Mapping[str, JSONValue] | None = None,
    cache_dir: Path | None = None,
) -> RetrievalStrategy:
    """Build strategy ``code`` over ``catalog`` (whose lexical index is ``index``)."""
    entry = get_strategy(code)
    endpoints = tuple(
        sorted(catalog.endpoints if isinstance(catalog, Catalog) else catalog, key=lambda e: e.route_id)
    )
    if tuple(e.route_id for e in endpoints) != index.route_ids:
        raise SchemaRouterError(f"retrieval strategy {code!r}: the index was built over another catalog")
    context = StrategyContext(
        index=index, endpoints=endpoints, params=parse_params(code, params), cache_dir=cache_dir
    )
    return entry.factory(context)


def strategy_of(spec: RetrieverSpec) -> tuple[str, JSONObject]:
    """The (code, params) a retriever spec names; no ``strategy`` entry means ``text_concat``."""
    if spec.strategy is None:
        return DEFAULT_STRATEGY, {}
    return spec.strategy.code, dict(spec.strategy.params)


def build_from_spec(
    spec: RetrieverSpec,
    catalog: Catalog | Sequence[Endpoint],
    *,
    index: RetrievalIndex | None = None,
    cache_dir: Path | None = None,
) -> RetrievalStrategy:
    """Build the strategy ``spec`` names, over ``catalog`` (indexing it unless ``index`` is given)."""
    code, params = strategy_of(spec)
    built = index if index is not None else RetrievalIndex.build(catalog, spec)
    return build_strategy(code, catalog, index=built, params=params, cache_dir=cache_dir)
