"""Everything an episode needs that is expensive to build: built once per process, reused per episode.

Per catalog size: the catalog, its digest, its route lookups, its rendered tool schemas, its retrieval
index and the two retrievers over it. Shared: the surface, the compiled specs, and a token counter whose
caches live as long as the process. Nothing here is rebuilt per episode.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from runtime.agents.catalog_view import AgentCatalog
from runtime.agents.protocol import Agent
from runtime.agents.registry import make_agent
from runtime.catalog.io import catalog_digest, load_catalog_with_digest
from runtime.catalog.model import Catalog, Endpoint
from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONValue
from runtime.engine.metrics import RegisteredMetric, metrics_named
from runtime.engine.query_rankings import MemoizedQueryRankings
from runtime.prompt import ExposedTools, ToolSchemas
from runtime.retrieval import RetrieverSpec, StateAwareRetriever, StaticRetriever
from runtime.retrieval.index import RetrievalIndex
from runtime.retrieval.key_free import KeyFreeMatch, key_free_match
from runtime.retrieval.strategy import build_from_spec
from runtime.spec_model import CompiledSpec, StateContractSpec
from runtime.spec_model.agent import AgentSpec
from runtime.spec_model.conditions import ConditionRetrieverSpec, ConditionSpec
from runtime.spec_model.engine import EngineSpec
from runtime.spec_model.retriever import StrategyChoice
from runtime.state.guard import install_from_compiled
from runtime.surface.io import load_surface, load_surface_file
from runtime.surface.model import Task
from runtime.tokens import TokenCounter, load_tokenizer


@dataclass
class CatalogResources:
    """One catalog size: endpoints, lookups and retrievers over one shared index."""

    catalog: Catalog
    static_retriever: StaticRetriever
    state_aware_retriever: StateAwareRetriever
    digest: str | None = None  # the catalog file's digest; computed from the catalog when not given
    retriever_spec: RetrieverSpec | None = None  # what a condition's own strategy is built with
    state_contract: StateContractSpec | None = None
    cache_dir: Path | None = None
    index: RetrievalIndex | None = None  # the experiment's spec's index, which the strategy searches
    _own: dict[str, tuple[StaticRetriever, StateAwareRetriever]] = field(init=False, default_factory=dict)
    _key_free: dict[tuple[str, tuple[str, ...]], KeyFreeMatch] = field(init=False, default_factory=dict)
    by_route: dict[str, Endpoint] = field(init=False)
    by_name: dict[str, Endpoint] = field(init=False)
    route_ids: tuple[str, ...] = field(init=False)
    schemas: ToolSchemas = field(init=False)
    agent_catalog: AgentCatalog = field(init=False)

    def __post_init__(self) -> None:
        if self.digest is None:
            self.digest = catalog_digest(self.catalog)
        self.by_route = self.catalog.by_route()
        self.by_name = self.catalog.by_name()
        self.route_ids = tuple(sorted(self.by_route))
        self.schemas = ToolSchemas(self.by_route, self.digest)
        self.agent_catalog = AgentCatalog(self.catalog.endpoints)

    @classmethod
    def build(
        cls,
        catalog: Catalog,
        retriever_spec: RetrieverSpec,
        state_contract: StateContractSpec | None,
        *,
        digest: str | None = None,
        cache_dir: Path | None = None,
    ) -> CatalogResources:
        """Index ``catalog`` and build the spec's retrieval strategy and its two entry points (once per
        catalog and process); ``cache_dir`` holds derived document data a strategy may cache."""
        index = RetrievalIndex.build(catalog, retriever_spec)
        strategy = build_from_spec(retriever_spec, catalog, index=index, cache_dir=cache_dir)
        return cls(
            catalog=catalog,
            static_retriever=StaticRetriever(MemoizedQueryRankings(strategy)),
            state_aware_retriever=StateAwareRetriever(strategy, state_contract),
            digest=digest,
            retriever_spec=retriever_spec,
            state_contract=state_contract,
            cache_dir=cache_dir,
            index=index,
        )

    def retrievers_for(
        self, choice: ConditionRetrieverSpec | None
    ) -> tuple[StaticRetriever, StateAwareRetriever]:
        """The two entry points over a condition's own strategy (built once per catalog and choice);
        ``None``: the experiment's retriever.yaml strategy."""
        if choice is None:
            return self.static_retriever, self.state_aware_retriever
        if self.retriever_spec is None:
            raise SchemaRouterError("a condition names its own retriever, but no retriever spec is loaded")
        key = json.dumps(choice.model_dump(mode="json"), sort_keys=True)
        if key not in self._own:
            spec = self.retriever_spec.model_copy(
                update={"strategy": StrategyChoice(code=choice.code, params=dict(choice.params))}
            )
            strategy = build_from_spec(spec, self.catalog, cache_dir=self.cache_dir)
            self._own[key] = (
                StaticRetriever(MemoizedQueryRankings(strategy)),
                StateAwareRetriever(strategy, self.state_contract),
            )
        return self._own[key]

    def key_free(self, stripped: str, routes: tuple[str, ...]) -> KeyFreeMatch:
        """What a refresh's key-free text says of its ``routes`` on this catalog's index, memoized (the
        diagnostics' question, answered where the index is: ``runtime/engine/key_free_notes.py``)."""
        key = (stripped, routes)
        found = self._key_free.get(key)
        if found is None:
            assert self.index is not None, "a catalog built without its index"
            found = self._key_free[key] = key_free_match(self.index, stripped, routes)
        return found

    def exposed(self, route_ids: Sequence[str]) -> ExposedTools:
        """The rendered set for these route IDs, in this order (cached per set)."""
        return self.schemas.exposed(route_ids)

    def names_of(self, route_ids: Sequence[str]) -> frozenset[str]:
        """Tool names of these routes (cached with their rendered set)."""
        return self.exposed(route_ids).names


class EngineResources:
    def __init__(
        self,
        *,
        compiled: CompiledSpec,
        catalogs: dict[int, CatalogResources],
        tasks: Sequence[Task],
        engine_spec: EngineSpec,
        agent_spec: AgentSpec,
        agent: str,
        tokenizer_path: str | None = None,
        agent_options: Mapping[str, JSONValue] | None = None,
    ):
        self.compiled = compiled
        self.agent_options = dict(agent_options or {})
        self._catalogs = catalogs
        self.tasks = {t.task_id: t for t in tasks}
        self.engine_spec = engine_spec
        self.agent_spec = agent_spec
        self.agent = agent
        tokenizer_config = engine_spec.tokenizer_config(tokenizer_path)
        tokenizer = load_tokenizer(tokenizer_config)
        self.tokenizer_name = tokenizer.name
        self.tokenizer_config = tokenizer_config
        acc = engine_spec.token_accounting
        self.counter = TokenCounter(
            tokenizer, per_message_overhead=acc.per_message_overhead, reply_priming=acc.reply_priming
        )
        self._conditions = {c.id: c for c in compiled.conditions}
        self.metric_ids = tuple(m.id for m in compiled.metrics)  # computed: these, in spec order
        self._metrics: tuple[RegisteredMetric, ...] | None = None

    def metrics(self) -> tuple[RegisteredMetric, ...]:
        """The registered metrics of ``metric_ids``, in spec order: resolved at the first episode (a
        missing implementation is refused there, as before), then once for every episode of these
        resources (one compiled experiment: its metric IDs cannot change)."""
        if self._metrics is None:
            self._metrics = metrics_named(self.metric_ids)
        return self._metrics

    @classmethod
    def load(
        cls,
        *,
        catalogs_dir: Path,
        compiled: CompiledSpec,
        catalog_sizes: Iterable[int] = (100, 250, 500),
        agent: str = "reference",
        tokenizer_path: str | None = None,
        agent_options: Mapping[str, JSONValue] | None = None,
        surface_file: Path | None = None,
        cache_dir: Path | None = None,
    ) -> EngineResources:
        """``surface_file``: a pilot surface instead of the experiment's evaluation surface;
        ``cache_dir``: where strategies may cache derived document data (none: kept in memory)."""
        install_from_compiled(compiled)  # the state boundary enforces this experiment's contract
        retriever_spec = RetrieverSpec.from_compiled(compiled)
        catalogs: dict[int, CatalogResources] = {}
        for size in catalog_sizes:
            catalog, digest = load_catalog_with_digest(catalogs_dir, size)
            catalogs[size] = CatalogResources.build(
                catalog,
                retriever_spec,
                compiled.state_contract,
                digest=digest,
                cache_dir=cache_dir,
            )
        return cls(
            compiled=compiled,
            catalogs=catalogs,
            tasks=load_surface(catalogs_dir) if surface_file is None else load_surface_file(surface_file),
            engine_spec=EngineSpec.from_compiled(compiled),
            agent_spec=AgentSpec.from_compiled(compiled),
            agent=agent,
            tokenizer_path=tokenizer_path,
            agent_options=agent_options,
        )

    def has_catalog(self, size: int) -> bool:
        return size in self._catalogs

    def add_catalog(self, size: int, catalog: CatalogResources) -> None:
        """Make another catalog available under ``size`` (benchmarks' synthetic catalogs)."""
        self._catalogs[size] = catalog

    def catalog(self, size: int) -> CatalogResources:
        try:
            return self._catalogs[size]
        except KeyError:
            raise SchemaRouterError(
                f"catalog {size} is not loaded; loaded: {', '.join(map(str, sorted(self._catalogs)))}"
            ) from None

    def condition(self, condition_id: str) -> ConditionSpec:
        try:
            return self._conditions[condition_id]
        except KeyError:
            known = ", ".join(sorted(self._conditions))
            raise SchemaRouterError(f"unknown condition {condition_id!r}; known: {known}") from None

    def task(self, task_id: str) -> Task:
        try:
            return self.tasks[task_id]
        except KeyError:
            raise SchemaRouterError(f"unknown task {task_id!r}") from None

    def make_agent(self, *, task: Task, catalog: CatalogResources, epoch: int = 1) -> Agent:
        """The agent of one episode; ``epoch`` > 1 reaches it as the ``epoch`` option (its seed)."""
        options = self.agent_options if epoch == 1 else {**self.agent_options, "epoch": epoch}
        return make_agent(
            self.agent,
            task=task,
            catalog=catalog.agent_catalog,
            settings=self.agent_spec.section(self.agent),
            options=options,
        )
