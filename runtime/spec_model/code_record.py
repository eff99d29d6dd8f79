"""The code record a freeze lock carries (``code``): what implements each component an experiment
uses, and how it behaved on a fixed canary set.

Each :class:`ComponentPin` names one component the compiled experiment executes (its retrieval strategy
with its params, each exposure policy kind, each metric, each gate statistic, the agent, the state
guard, the simulator's expression language, the episode engine) with:

* ``implementation``: the sha256 over its source files (``DIGEST_RULE``: the module that registers it
  plus every in-project module it imports, transitively);
* ``canary``: one short hash per canary item (a ranking, an episode's exposures, a metric value, ...),
  so ``sr verify`` can count how many items of which component differ.

The record is an annex of the lock: the root and every frozen file stay as they were, and the lock
omits the ``code`` key while it has no record, so the bytes and digest of every older lock still
verify. Records are appended (``sr lock pin-code``, ``sr freeze``), never rewritten; the last one whose
``root`` is the lock's applies.
"""

from __future__ import annotations

from typing import Any

from pydantic import AwareDatetime, Field

from runtime.core.frozen_model import FrozenModel
from runtime.spec_model.digest import Digest

DIGEST_RULE = (
    "sha256 of the RFC 8785 JSON of [[path, sha256 hex of the file's bytes], ...] sorted by path, over "
    "the component's module and every in-project (schemarouter.*) module named by an import statement "
    "of a covered file, transitively (imports inside functions and TYPE_CHECKING blocks included; a "
    "package's __init__.py only when the import names the package itself)"
)
CANARY_RULE = "first 16 hex of the sha256 of the RFC 8785 JSON of the item's value"


class CanarySet(FrozenModel):
    """Which deterministic episodes the canaries come from."""

    surface: str = Field(description="The pilot surface the canary tasks come from (dev).")
    surface_sha256: str = Field(description="sha256 of that surface file's bytes.")
    catalog: int = Field(description="The catalog size the canary episodes run on.")
    agent: str = Field(description="The agent of the canary episodes.")
    depth: int = Field(description="Depth of the canary rankings.")
    tasks: tuple[str, ...] = Field(description="Canary task ids: the first per_stratum of each stratum.")
    conditions: tuple[str, ...] = Field(description="Every condition of the experiment, in spec order.")


class DistributionPin(FrozenModel):
    """The installed package a component comes from (its entry point's distribution)."""

    name: str = Field(description="Distribution name, as installed (pip show NAME).")
    version: str = Field(description="Its version when the code was pinned.")

    def label(self) -> str:
        return f"{self.name} {self.version}"


class ComponentPin(FrozenModel):
    """One component the experiment executes."""

    kind: str = Field(description="retrieval strategy, exposure policy, metric, gate statistic, agent, ...")
    name: str = Field(description="Its name in the spec (code, policy kind, metric id, ...).")
    module: str = Field(description="The module that implements (registers) it.")
    params: dict[str, Any] | None = Field(default=None, description="Its spec params (strategies).")
    implementation: Digest = Field(description="Digest of its source files (DIGEST_RULE).")
    source_files: int = Field(description="How many source files the digest covers.")
    canary: dict[str, str] = Field(description="Canary item -> its hash (CANARY_RULE).")
    distribution: DistributionPin | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The installed distribution that provides it (an entry point of schemarouter.<kind>); "
        "absent for this project's own code, so locks pinned before the field keep their bytes.",
    )

    @property
    def label(self) -> str:
        return f"{self.kind} {self.name}"

    @property
    def source_label(self) -> str:
        """The label, with the distribution of an installed package's component."""
        return (
            self.label
            if self.distribution is None
            else f"{self.label} (distribution {self.distribution.label()})"
        )


class CodeRecord(FrozenModel):
    """The code an experiment's freeze executes, pinned once (appended to the lock's ``code``)."""

    root: Digest = Field(description="The freeze root this record was pinned under.")
    at: AwareDatetime = Field(description="When it was pinned (UTC).")
    reason: str = Field(description="Why (sr lock pin-code --reason, or the freeze's reason).")
    digest_rule: str = Field(description="What an implementation digest covers (DIGEST_RULE).")
    canary_rule: str = Field(description="How a canary item is hashed (CANARY_RULE).")
    canary_set: CanarySet = Field(description="The canary episodes.")
    components: tuple[ComponentPin, ...] = Field(description="Every component, in a stable order.")
