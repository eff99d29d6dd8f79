"""What a report, a run manifest and the console say about which experiment ran and where it came from.

Read from the compiled spec: the experiment's id and title, and for a successor its lineage
(``lineage.yaml``) and declared deviations (``deviations.yaml``), protocol changes counted apart.
"""

from __future__ import annotations

from pydantic import Field

from runtime.core.frozen_model import FrozenModel
from runtime.spec_model.compiled import CompiledSpec


class Deviation(FrozenModel):
    """One declared difference from the parent."""

    change: str = Field(description="The difference as the semantic diff states it.")
    kind: str = Field(description="protocol, spec or catalog.")
    rationale: str = Field(description="The researcher's rationale.")


class Lineage(FrozenModel):
    """Where a successor came from, and how it deviates."""

    parent: str = Field(description="The parent experiment's id.")
    parent_root: str | None = Field(description="The parent's freeze root when the successor was made.")
    reason: str = Field(description="Why the successor exists.")
    deviations: tuple[Deviation, ...] = Field(description="Every declared deviation, in log order.")

    @property
    def protocol_deviations(self) -> int:
        return sum(1 for d in self.deviations if d.kind == "protocol")


def lineage_of(compiled: CompiledSpec) -> Lineage | None:
    """The compiled experiment's lineage, or None for an experiment without a parent."""
    raw = compiled.raw
    lineage = raw.get("lineage")
    if not isinstance(lineage, dict):
        return None
    entries = (raw.get("deviations") or {}).get("deviations") or []
    return Lineage(
        parent=str(lineage["parent"]),
        parent_root=lineage.get("parent_root"),
        reason=str(lineage.get("reason", "")),
        deviations=tuple(
            Deviation(change=str(e["change"]), kind=str(e.get("kind", "spec")), rationale=str(e["rationale"]))
            for e in entries
        ),
    )


def identity_line(experiment_id: str, lineage: Lineage | None) -> str:
    """``Experiment 0.15: successor of 0.14 (root 9a0b6155…), 7 declared deviations, 1 of the protocol``."""
    if lineage is None:
        return f"Experiment {experiment_id} (no parent)"
    root = f" (root {lineage.parent_root[:12]}…)" if lineage.parent_root else " (a draft)"
    count = len(lineage.deviations)
    return (
        f"Experiment {experiment_id}: successor of {lineage.parent}{root}, {count} declared "
        f"deviation{'' if count == 1 else 's'}, {lineage.protocol_deviations} of the protocol"
    )
