"""Semantic checks of retriever.yaml: the strategy it names is registered and its parameters fit.

The JSON Schema can say that ``strategy`` has a ``code`` and ``params``; only the registry knows
which codes exist and what each strategy's parameters are, so that is checked here, with the line of
the offending key like every other problem. The full model (``parse_retriever_spec``) is the
runtime's own reading, checked too so a compile never hands the runtime a spec it would refuse.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from pydantic import ValidationError

from compiler.issues import SpecIssue
from compiler.semantic_view import SpecView
from runtime.core.errors import SchemaRouterError
from runtime.retrieval.strategy import get_strategy, strategy_codes

NAME = "retriever"

PROBLEMS: Final[dict[str, str]] = {
    "RT101": "strategy.code … is not a registered retrieval strategy",
    "RT102": "strategy.params do not fit the strategy's parameters",
    "RT103": "strategy.params names a field … that is not a field of this retriever spec",
}


def check_strategy(view: SpecView) -> Iterator[SpecIssue]:
    """``strategy.code`` is a registered strategy and ``strategy.params`` validate with its model."""
    data = view.data(NAME)
    strategy = data.get("strategy") if isinstance(data, dict) else None
    if not isinstance(strategy, dict):
        return
    code = strategy.get("code")
    if code not in strategy_codes():
        yield view.issue(
            NAME,
            ("strategy", "code"),
            f"{code!r} is not a registered retrieval strategy (known: {', '.join(strategy_codes())})",
            code="RT101",
        )
        return
    try:
        get_strategy(str(code)).params.model_validate(strategy.get("params") or {})
    except ValidationError as err:
        for e in err.errors(include_url=False):
            loc: tuple[Any, ...] = tuple(e["loc"])
            where = _deepest(strategy.get("params") or {}, ("strategy", "params"), loc)
            yield view.issue(NAME, where, e["msg"], code="RT102")
        return
    except SchemaRouterError as err:
        yield view.issue(NAME, ("strategy", "params"), str(err), code="RT102")
        return
    fields = {f.get("id") for f in data.get("fields", []) if isinstance(f, dict)}
    for path, value in _field_refs(strategy.get("params") or {}, ("strategy", "params")):
        if value not in fields:
            yield view.issue(
                NAME, path, f"{value!r} is not a field of this retriever spec (fields[].id)", code="RT103"
            )


def _field_refs(node: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every ``field: <id>`` inside the params: a strategy's reference to an index field."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "field" and not isinstance(value, dict | list):
                yield (*path, key), value
            else:
                yield from _field_refs(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _field_refs(value, (*path, index))


def _deepest(params: Any, base: tuple[Any, ...], loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """The longest prefix of ``loc`` that exists in the document (a missing key points at its parent)."""
    path, node = base, params
    for part in loc:
        if (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        ):
            path, node = (*path, part), node[part]
        else:
            break
    return path
