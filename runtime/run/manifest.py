"""``manifest.json``: what a run directory holds, under which frozen spec and code, and when it ran.

Written when the directory is created and rewritten atomically at the start and end of every session
(a first run or a ``--resume``). Everything except ``sessions`` is fixed at creation; a resume that
would change any of it is refused.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import AwareDatetime, Field, ValidationError

from runtime.core import safe_json
from runtime.core.errors import SchemaRouterError
from runtime.core.frozen_model import FrozenModel
from runtime.run import jsonio
from runtime.run.provenance import SourceState
from runtime.run.scope import RunScope, Shard

MANIFEST_VERSION = 1
MANIFEST_FILE = "manifest.json"


class FreezeState(FrozenModel):
    """The frozen spec the run executed under."""

    root_hash: str | None = Field(description="Freeze root hash of spec/freeze.lock; null for a draft.")
    draft: bool = Field(description="True when the specs were not frozen: such a run is never scored.")


class PilotSurface(FrozenModel):
    """The surface a pilot run executed on instead of the evaluation surface. A run with one is a
    pilot: marked PILOT everywhere, scored only as a pilot, never recorded as scoring in any lock."""

    name: str = Field(description="The named surface (dev), or 'file' for `sr run --surface-file`.")
    path: str = Field(description="The surface file, relative to the project root when inside it.")
    sha256: str = Field(description="sha256 of the surface file's bytes when the run was created.")
    tasks: int = Field(description="Tasks in the surface file.")


class AgentConfig(FrozenModel):
    """The agent and the tokenizer that produced the episodes."""

    name: str = Field(description="Agent name (reference, adversarial, openai, ...).")
    config: dict[str, Any] = Field(description="The agent's section of spec/agent.yaml, as compiled.")
    tokenizer: dict[str, Any] = Field(description="The tokenizer section of spec/engine.yaml, as compiled.")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="Run-level overrides that change what the agent is (e.g. model, constrained_decoding); "
        "part of the run's identity. Transport settings (base URL, cache) are not recorded here.",
    )
    warnings: tuple[str, ...] = Field(
        default=(),
        exclude_if=lambda value: not value,
        description="What the model does not see, or sees otherwise than counted, under the server template "
        "the run named (runtime/agents/server_templates.py). Absent when there is none.",
    )


class PluginComponent(FrozenModel):
    """A component the run executes that an installed package provides (an entry point of
    ``schemarouter.<kind>``): which distribution, at which version, with which code."""

    kind: str = Field(description="retrieval strategy, exposure policy, metric, gate statistic, agent.")
    name: str = Field(description="Its name in the spec (strategy code, policy kind, metric id, ...).")
    module: str = Field(description="The module that registers it.")
    distribution: str = Field(description="The installed distribution whose entry point loaded it.")
    version: str = Field(description="That distribution's version.")
    implementation: str = Field(description="sha256 of its source files (code_record.DIGEST_RULE).")


class Session(FrozenModel):
    """One process that executed episodes in this directory."""

    number: int = Field(description="1 for the first run, 2 for the first resume, ...")
    started_at: AwareDatetime = Field(description="UTC start time.")
    finished_at: AwareDatetime | None = Field(
        default=None, description="UTC end time; null if the process died or is still running."
    )
    workers: int = Field(description="Worker processes used.")
    executor: str | None = Field(
        default=None,
        description="Executor code that ran the session (local, ray); null in sessions recorded before "
        "executors had codes.",
    )
    source: SourceState = Field(description="Git state when the session started.")
    committed: int | None = Field(default=None, description="Episodes this session committed.")
    infrastructure_events: int | None = Field(
        default=None, description="Infrastructure events this session recorded."
    )
    model_calls: dict[str, int] | None = Field(
        default=None,
        description="Model agents only: calls, cache_hits, server_calls and the server's reported prompt "
        "and completion tokens, summed over the episodes this session committed.",
    )


class RunManifest(FrozenModel):
    """The manifest of one run directory."""

    manifest_version: int = Field(default=MANIFEST_VERSION, description="Version of this file's schema.")
    run_id: str = Field(description="The run ID, also the directory name under runs/.")
    experiment_id: str = Field(description="Experiment ID from spec/experiment.yaml (0.14).")
    created_at: AwareDatetime = Field(description="UTC time the directory was created.")
    freeze: FreezeState = Field(description="The frozen spec the run executed under.")
    source: SourceState = Field(description="Git commit and dirty flag when the directory was created.")
    packages: dict[str, str] = Field(description="Versions of Python and of the result-relevant packages.")
    agent: AgentConfig = Field(description="Agent and tokenizer configuration.")
    scope: RunScope = Field(description="The declared scope before sharding.")
    shard: Shard = Field(description="Which shard of the scope this directory executes.")
    episodes: int = Field(description="Number of episodes of this shard: terminal means all committed.")
    config_hash: str = Field(
        description="sha256 of the run's identity (freeze, source commit, agent, scope, shard)."
    )
    sessions: tuple[Session, ...] = Field(default=(), description="Every session, oldest first.")
    lineage: dict[str, Any] | None = Field(
        default=None,
        description="A successor's parent, parent_root, reason and deviation counts (deviations, "
        "protocol_deviations); absent for an experiment without a parent.",
    )
    surface: PilotSurface | None = Field(
        default=None,
        description="A pilot's surface (PILOT: never scoring of record); absent on the evaluation surface.",
    )
    plugins: tuple[PluginComponent, ...] = Field(
        default=(),
        exclude_if=lambda value: not value,
        description="Every component an installed package provides, with its distribution, version and "
        "implementation digest; absent when the run executes only this project's code.",
    )

    @property
    def pilot(self) -> bool:
        return self.surface is not None


def config_hash(
    *,
    freeze: FreezeState,
    git_commit: str | None,
    agent: AgentConfig,
    scope: RunScope,
    shard: Shard,
    surface: PilotSurface | None = None,
    plugins: tuple[PluginComponent, ...] = (),
) -> str:
    """The identity a resume must match: same frozen spec, source commit, agent, scope and shard (and,
    for a pilot, the same surface file)."""
    identity: dict[str, Any] = {
        "freeze": freeze.model_dump(mode="json"),
        "git_commit": git_commit,
        "agent": agent.model_dump(mode="json"),
        "scope": scope.model_dump(mode="json"),
        "shard": shard.model_dump(mode="json"),
    }
    if surface is not None:  # absent on the evaluation surface, so its runs keep their identity
        identity["surface"] = surface.model_dump(mode="json")
    if plugins:  # an installed package's code is part of what the run is; absent otherwise
        identity["plugins"] = [p.model_dump(mode="json") for p in plugins]
    return "sha256:" + hashlib.sha256(jsonio.dumps(identity, indent=None).encode()).hexdigest()


def now_utc() -> datetime:
    return datetime.now(UTC)


def write_manifest(run_dir: Path, manifest: RunManifest) -> None:
    jsonio.write_json(run_dir / MANIFEST_FILE, manifest.model_dump(mode="json"))


def read_manifest(run_dir: Path) -> RunManifest:
    """The manifest of ``run_dir``; a missing, damaged or foreign one is one SchemaRouterError line,
    ``manifest.json:line:col: ...`` where the position is known."""
    path = run_dir / MANIFEST_FILE
    if not path.is_file():
        raise SchemaRouterError(f"{run_dir}: not a run directory (no {MANIFEST_FILE})")
    try:
        raw = path.read_bytes()
        data = safe_json.loads(raw)
    except (OSError, ValueError) as err:
        raise SchemaRouterError(safe_json.describe(path, err, "not a readable run manifest")) from None
    if not isinstance(data, dict):
        raise SchemaRouterError(
            f"{path}:1:1: not a run manifest: a JSON object is expected, not {type(data).__name__}"
        )
    version = data.get("manifest_version")
    if version != MANIFEST_VERSION:
        raise SchemaRouterError(
            f"{path}: manifest_version {version!r}, this code reads version {MANIFEST_VERSION}"
        )
    try:
        return RunManifest.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = tuple(first.get("loc", ()))
        line, column = safe_json.position_of(raw.decode("utf-8"), loc)
        where = ".".join(str(part) for part in loc) or "(top)"
        raise SchemaRouterError(
            f"{path}:{line}:{column}: not a valid run manifest: {where}: {first['msg']}"
        ) from None
