"""Which spec values are protocol (a change needs a protocol-kind deviation) and which are free.

Said up front, so a successor's author knows before editing: ``sr experiment new`` prints this list and
``sr deviations`` shows it, and ``deviations._kind`` classifies each difference by it. The protocol file
itself is protocol throughout; in the other files, a value is protocol when its key path starts with
one of the prefixes below (descriptions and rationales inside them stay free: they are words about a
rule, and CO114 checks that they state the rules the protocol allows).
"""

from __future__ import annotations

from typing import Final

# (file, key-path prefix as the semantic diff writes it, why it is protocol)
PROTOCOL_VALUES: Final[tuple[tuple[str, str, str], ...]] = (
    ("spec/protocol.yaml", "", "the preregistration itself"),
    ("spec/schema/protocol.schema.json", "", "what the preregistration may say"),
    (
        "spec/conditions.yaml",
        "conditions.conditions",
        "which conditions exist and each one's policy, ranking, refresh variant, params and retriever",
    ),
    ("spec/conditions.yaml", "conditions.limits", "the seed's limits"),
    ("spec/state_contract.yaml", "state_contract", "what research retrieval may see (the boundary)"),
    ("spec/retriever.yaml", "retriever.strategy", "the retriever of every condition that names none"),
    ("spec/gates.yaml", "gates", "the gate's criteria"),
    ("spec/metrics.yaml", "metrics", "what is measured"),
)
FREE_KEYS: Final[tuple[str, ...]] = ("description", "rationale")


def _key_path(detail: str) -> str:
    return detail.split(": ", 1)[0]


def is_protocol_value(path: str, detail: str) -> bool:
    """Whether the difference ``detail`` of file ``path`` changes a protocol value."""
    key = _key_path(detail)
    if key.rsplit(".", 1)[-1] in FREE_KEYS:
        return False
    return any(path == file and key.startswith(prefix) for file, prefix, _ in PROTOCOL_VALUES)


def protocol_value_lines() -> list[str]:
    """The list as ``sr experiment new`` and ``sr deviations`` print it."""
    lines = ["protocol values (a change needs a protocol-kind deviation):"]
    for file, prefix, why in PROTOCOL_VALUES:
        lines.append(f"  {file}{': ' + prefix if prefix else ''} ({why})")
    lines.append(
        "free values (a spec-kind deviation with a rationale): everything else, and every "
        f"{' / '.join(FREE_KEYS)} inside the above"
    )
    return lines
