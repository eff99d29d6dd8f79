"""Turn the compiled spec, the surface's tasks and the ``sr run`` options into a :class:`RunRequest`."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from runtime.core.errors import SchemaRouterError
from runtime.core.json_value import JSONObject, JSONValue
from runtime.run.manifest import AgentConfig, FreezeState, PilotSurface, RunManifest
from runtime.run.rundir import RunRequest
from runtime.run.scope import (
    RunScope,
    Selection,
    Shard,
    TaskRef,
    select_catalogs,
    select_conditions,
    select_tasks,
)
from runtime.spec_model.compiled import CompiledSpec
from runtime.spec_model.identity import lineage_of


class SurfaceTask(Protocol):
    task_id: str
    stratum: str
    language: str


def task_refs(tasks: Iterable[SurfaceTask]) -> list[TaskRef]:
    return [TaskRef(task_id=t.task_id, stratum=t.stratum, language=t.language) for t in tasks]


def freeze_state(compiled: CompiledSpec) -> FreezeState:
    return FreezeState(root_hash=compiled.root_hash, draft=bool(compiled.draft))


# Agent options that change what the agent is, and so belong to a run's identity. Others (base URL,
# cache path, no-cache) only say how to reach it: a recovery run may use another server port.
IDENTITY_OPTIONS = (
    "model",
    "constrained_decoding",
    "tokenizer_json",
    # Sampling and what the server's template shows the model: they change what the agent is.
    "max_tokens",
    "temperature",
    "top_p",
    "seed",
    "tool_results_as_text",
    "server_template",
)


def agent_config(
    compiled: CompiledSpec, agent: str | None, options: Mapping[str, JSONValue] | None = None
) -> AgentConfig:
    """The agent's frozen section of spec/agent.yaml and the tokenizer of spec/engine.yaml."""
    agents = compiled.spec_data("agent")
    if agent is not None and not agent.strip():
        raise SchemaRouterError("--agent '': names no agent; leave the option out for the default")
    name = agent or agents.get("default_agent", "reference")
    config = agents.get(name) if isinstance(agents.get(name), dict) else _registered_defaults(name)
    if config is None:
        known = ", ".join(k for k, v in agents.items() if isinstance(v, dict))
        raise SchemaRouterError(f"--agent: unknown agent {name!r}; spec/agent.yaml defines: {known}")
    tokenizer = compiled.spec_data("engine").get("tokenizer", {})
    tokenizer_json = (options or {}).get("tokenizer_json")
    if tokenizer_json:
        tokenizer = _user_tokenizer(str(tokenizer_json))
    identity = {k: v for k, v in (options or {}).items() if k in IDENTITY_OPTIONS and v is not None}
    warnings: list[str] = []
    if name == "openai":
        from runtime.agents.server_templates import template_warnings

        constrained = bool(identity.get("constrained_decoding", config.get("constrained_decoding")))
        template = identity.get("server_template")
        warnings = template_warnings(template if isinstance(template, str) else None, constrained=constrained)
    return AgentConfig(
        name=name, config=config, tokenizer=tokenizer, options=identity, warnings=tuple(warnings)
    )


def _registered_defaults(name: str) -> dict[str, Any] | None:
    """A registered agent that agent.yaml does not name runs with the defaults its registration declares
    (recorded in the manifest as the run's agent configuration); None when it declares none."""
    from runtime.agents.registry import agent_names, registered_agent

    if name not in agent_names():
        return None
    defaults = registered_agent(name).defaults
    return dict(defaults) if defaults is not None else None


def _user_tokenizer(path: str) -> dict[str, Any]:
    """A user's Hugging Face tokenizer.json, identified by its sha256 (counts depend on its content)."""
    try:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as err:
        raise SchemaRouterError(f"--tokenizer-json: cannot read {path} ({err.strerror})") from None
    return {"kind": "huggingface", "path": path, "sha256": digest}


def build_request(
    compiled: CompiledSpec,
    tasks: Iterable[SurfaceTask],
    *,
    agent: str | None,
    conditions: Selection | None,
    catalogs: Selection | None,
    task_filter: Selection | None,
    shard: str | None,
    agent_options: Mapping[str, JSONValue] | None = None,
    surface: PilotSurface | None = None,
    epochs: int = 1,
) -> RunRequest:
    """A new run's request from ``sr run`` options (each None means: everything preregistered)."""
    experiment = compiled.experiment
    all_tasks = task_refs(tasks)
    spec_conditions = [(c.id, c.code) for c in compiled.conditions]
    chosen_conditions = select_conditions(conditions, spec_conditions)
    chosen_catalogs = select_catalogs(catalogs, list(experiment.catalog_sizes))
    chosen_tasks = select_tasks(
        task_filter,
        all_tasks,
        strata=[(s.id, s.code) for s in compiled.strata],
        languages=[lang.code for lang in experiment.languages],
    )
    preregistered = (
        len(chosen_conditions) == len(spec_conditions)
        and len(chosen_catalogs) == len(experiment.catalog_sizes)
        and len(chosen_tasks) == len(all_tasks)
        and surface is None  # a pilot is never the preregistered experiment
        and epochs == 1  # the preregistered design is one trial per episode
    )
    scope = RunScope(
        conditions=chosen_conditions,
        catalogs=chosen_catalogs,
        tasks=chosen_tasks,
        preregistered=preregistered,
        epochs=_epochs(epochs),
    )
    return RunRequest(
        experiment_id=str(experiment.id),
        freeze=freeze_state(compiled),
        agent=agent_config(compiled, agent, agent_options),
        scope=scope,
        shard=Shard.parse(shard),
        lineage=lineage_summary(compiled),
        surface=surface,
    )


def _epochs(epochs: int) -> int:
    from runtime.run.scope import MAX_EPOCHS

    if isinstance(epochs, bool) or not isinstance(epochs, int) or not 1 <= epochs <= MAX_EPOCHS:
        raise SchemaRouterError(f"--epochs {epochs!r}: between 1 and {MAX_EPOCHS}")
    return epochs


def lineage_summary(compiled: CompiledSpec) -> JSONObject | None:
    """What a run manifest records of a successor's lineage (None without a parent)."""
    lineage = lineage_of(compiled)
    if lineage is None:
        return None
    return {
        "parent": lineage.parent,
        "parent_root": lineage.parent_root,
        "reason": lineage.reason,
        "deviations": len(lineage.deviations),
        "protocol_deviations": lineage.protocol_deviations,
    }


def resume_request(compiled: CompiledSpec, manifest: RunManifest) -> RunRequest:
    """The request to continue ``manifest``'s run under the current compiled spec (checked on open)."""
    return RunRequest(
        experiment_id=manifest.experiment_id,
        freeze=freeze_state(compiled),
        agent=agent_config(compiled, manifest.agent.name, manifest.agent.options),
        scope=manifest.scope,
        shard=manifest.shard,
        lineage=manifest.lineage,
        surface=manifest.surface,
    )
