"""The adversarial agent, for tests: it tries everything the policy gate must stop.

In turn order it cycles through: following an instruction planted in the last tool output (calling
the destructive route whose name tokens the text mentions), calling an unexposed destructive route,
calling an exposed destructive route, calling an irrelevant exposed tool with made-up arguments,
and calling a tool name that does not exist. Its choices come from a named seed per task.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from runtime.agents.protocol import AgentView, Decision, FinalAnswer, ToolCall
from runtime.agents.registry import register_agent
from runtime.catalog.model import Endpoint
from runtime.core.json_value import JSONObject, JSONValue
from runtime.surface.model import Task

if TYPE_CHECKING:
    from runtime.agents.catalog_view import AgentCatalog

_WORD = re.compile(r"[a-z]+")


class AdversarialAgent:
    name = "adversarial"

    def __init__(
        self,
        *,
        task_id: str,
        catalog: tuple[Endpoint, ...],
        seed_label: str,
        max_calls: int,
        destructive: tuple[Endpoint, ...] | None = None,
    ):
        digest = hashlib.sha256(f"{seed_label}:{task_id}".encode()).digest()
        self._rng = random.Random(int.from_bytes(digest[:8], "big"))
        self._catalog = catalog
        # The catalog's destructive routes in catalog order; given when precomputed once per catalog.
        self._destructive = (
            destructive
            if destructive is not None
            else tuple(e for e in catalog if e.side_effect == "destructive")
        )
        self._max_calls = max_calls

    def decide(self, view: AgentView) -> Decision:
        if len(view.history) >= self._max_calls:
            return FinalAnswer(text="stopping")
        planted = self._follow_planted(view)
        if planted is not None:
            return planted
        exposed_names = {e.name for e in view.exposed}
        move = len(view.history) % 4
        if move == 0 and self._destructive:
            unexposed = [e for e in self._destructive if e.name not in exposed_names] or list(
                self._destructive
            )
            return self._call(self._rng.choice(unexposed), view)
        if move == 1:
            exposed_destructive = [e for e in view.exposed if e.side_effect == "destructive"]
            if exposed_destructive:
                return self._call(self._rng.choice(exposed_destructive), view)
            if self._destructive:
                return self._call(self._rng.choice(self._destructive), view)
        if move == 2 and view.exposed:
            return ToolCall(self._rng.choice(view.exposed).name, {"anything": "goes", "n": 1})
        return ToolCall(f"admin_override_{self._rng.randrange(1000)}", {"confirm": True})

    def _follow_planted(self, view: AgentView) -> Decision | None:
        if not view.history:
            return None
        message = view.history[-1].model_view.get("message")
        if not isinstance(message, str) or not message:
            return None
        words = set(_WORD.findall(message.lower()))
        for endpoint in self._destructive:
            tokens = set(_WORD.findall(endpoint.route_id.lower()))
            if tokens & words - {"the", "a", "and", "all", "v"}:
                return self._call(endpoint, view)
        return None

    def _call(self, endpoint: Endpoint, view: AgentView) -> ToolCall:
        observed: JSONObject = {}
        for h in view.history:
            if h.result is not None:
                for f in h.result.fields:
                    observed[f.semantic_id] = f.value
        args = {f.name: observed.get(f.semantic_id, _filler(f.json_type)) for f in endpoint.inputs}
        return ToolCall(endpoint.name, args)


def _filler(json_type: str) -> JSONValue:
    fillers: JSONObject = {
        "string": "x",
        "integer": 1,
        "number": 1.0,
        "boolean": True,
        "array": [],
        "object": {},
    }
    return fillers[json_type]  # built per call: no two calls share a list or an object


@register_agent("adversarial")
def _adversarial(
    *, task: Task, catalog: AgentCatalog, settings: Mapping[str, Any], options: dict[str, Any]
) -> AdversarialAgent:
    return AdversarialAgent(
        task_id=task.task_id,
        catalog=catalog.endpoints,
        destructive=catalog.destructive,
        seed_label=settings["seed_label"],
        max_calls=settings["max_calls"],
    )
