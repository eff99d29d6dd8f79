"""Every retrieval strategy, ready to rank one catalog: the one place evaluation learns what exists.

Each registered strategy (``runtime/retrieval/strategy.py``) is evaluated in two ways, through the two
entry points that keep the contract's boundary:

- ``CODE · query``: the original query alone (``StaticRetriever``: no state can reach it), on every
  catalog and every query;
- ``CODE · query+state``: the research use (``StateAwareRetriever``: the query and the state's canonical
  JSON, nothing else), on the queries that carry a state.

The strategy the experiment's retriever spec names is built with the spec's parameters; every other
one with its defaults (a strategy whose parameters have no defaults is listed as not built, with why).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runtime.catalog.model import Catalog
from runtime.core.errors import SchemaRouterError
from runtime.retrieval.index import RetrievalIndex
from runtime.retrieval.retrievers import StateAwareRetriever, StaticRetriever
from runtime.retrieval.strategy import build_strategy, strategy_codes, strategy_of
from runtime.spec_model.retriever import RetrieverSpec


@dataclass(frozen=True)
class BuiltStrategy:
    """One strategy over one catalog, behind both entry points."""

    code: str
    static: StaticRetriever
    research: StateAwareRetriever


@dataclass(frozen=True)
class Strategies:
    built: tuple[BuiltStrategy, ...]
    not_built: tuple[tuple[str, str], ...]  # (code, why)


def all_strategies(catalog: Catalog, spec: RetrieverSpec, *, cache_dir: Path | None = None) -> Strategies:
    """Every registered strategy over ``catalog``, in code order."""
    index = RetrievalIndex.build(catalog, spec)
    chosen, chosen_params = strategy_of(spec)
    built, not_built = [], []
    for code in strategy_codes():
        params = chosen_params if code == chosen else None
        try:
            strategy = build_strategy(code, catalog, index=index, params=params, cache_dir=cache_dir)
        except SchemaRouterError as err:
            not_built.append((code, " ".join(str(err).split())))
            continue
        built.append(BuiltStrategy(code, StaticRetriever(strategy), StateAwareRetriever(strategy)))
    return Strategies(tuple(built), tuple(not_built))


def one_strategy(
    catalog: Catalog, spec: RetrieverSpec, code: str | None, *, cache_dir: Path | None = None
) -> BuiltStrategy:
    """The strategy ``code`` (default: the one the retriever spec names) over ``catalog``."""
    chosen, chosen_params = strategy_of(spec)
    code = code or chosen
    index = RetrievalIndex.build(catalog, spec)
    params = chosen_params if code == chosen else None
    strategy = build_strategy(code, catalog, index=index, params=params, cache_dir=cache_dir)
    return BuiltStrategy(code, StaticRetriever(strategy), StateAwareRetriever(strategy))
