"""What the state boundary reads of a compiled experiment: the shapes, not the models.

``runtime.state`` sits below ``runtime.spec_model`` (ARCHITECTURE.md, layer 4 under 5), so it cannot
import ``CompiledSpec``; these Protocols name exactly the parts the guard reads (the contract's
forbidden items and allowed fields, the conditions' ids, codes and retrieval queries). A
``CompiledSpec`` satisfies ``CompiledView``, and mypy checks that it does at every call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, Protocol

from runtime.core.json_value import JSONValue


class ForbiddenItemView(Protocol):
    """A forbidden item of the state contract: its stable id and the aliases it may hide under."""

    @property
    def id(self) -> str: ...

    @property
    def aliases(self) -> Sequence[str]: ...


class StateContractView(Protocol):
    """A compiled state contract: its forbidden items, and its data as JSON (for its allowed fields)."""

    @property
    def forbidden(self) -> Sequence[ForbiddenItemView]: ...

    def model_dump(self, *, mode: Literal["json"]) -> Mapping[str, JSONValue]: ...


class ConditionView(Protocol):
    """A condition as the guard refuses it: its id, its code and whether it retrieves."""

    @property
    def id(self) -> str: ...

    @property
    def code(self) -> str: ...

    @property
    def retrieval_query(self) -> str: ...


class CompiledView(Protocol):
    """A compiled experiment, as far as the state boundary reads it."""

    @property
    def state_contract(self) -> StateContractView: ...

    @property
    def conditions(self) -> Sequence[ConditionView]: ...
